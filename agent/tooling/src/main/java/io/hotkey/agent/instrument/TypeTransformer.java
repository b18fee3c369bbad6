package io.hotkey.agent.instrument;

import java.util.ArrayList;
import java.util.List;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.matcher.ElementMatcher;

/** What a {@link TypeInstrumentation} does to its type: advice on methods, members added. */
public final class TypeTransformer {
  /** Members a type gains as it loads. */
  public interface MemberDefinition {
    DynamicType.Builder<?> define(DynamicType.Builder<?> builder);
  }

  /** One advice class and the methods it is woven into. */
  static final class MethodAdvice {
    final ElementMatcher<? super MethodDescription> methods;
    final String adviceClass;

    MethodAdvice(ElementMatcher<? super MethodDescription> methods, String adviceClass) {
      this.methods = methods;
      this.adviceClass = adviceClass;
    }
  }

  private final List<MethodAdvice> advice = new ArrayList<>();
  private final List<MemberDefinition> members = new ArrayList<>();

  TypeTransformer() {}

  /**
   * Inlines the advice class's {@code @OnMethodEnter}/{@code @OnMethodExit} into the methods, also
   * into a class loaded before the agent (retransformed), unless the type gains members.
   */
  public TypeTransformer applyAdvice(
      ElementMatcher<? super MethodDescription> methods, String adviceClassName) {
    advice.add(new MethodAdvice(methods, adviceClassName));
    return this;
  }

  /**
   * Adds members. A loaded class cannot gain any, so a type that gains members is transformed only
   * as it loads, its advice included: the advice may rely on them, and the instrumentation must
   * work without them.
   */
  public TypeTransformer addMembers(MemberDefinition definition) {
    members.add(definition);
    return this;
  }

  List<MethodAdvice> advice() {
    return advice;
  }

  List<MemberDefinition> members() {
    return members;
  }
}
