package io.hotkey.agent.instrument.lettuce.v6;

import io.hotkey.agent.core.RedisHooks;
import io.hotkey.agent.instrument.HelperClasses;
import java.util.Collection;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The Lettuce helpers of each {@code RedisChannelHandler} class, defined next to it on first use
 * ({@link HelperClasses}).
 *
 * <p>Why the dispatch advice calls out instead of holding the code: advice is inlined into
 * {@code dispatch}, and C2 does not inline a hot method larger than 325 bytecodes (FreqInlineSize)
 * into its callers. Holding the replay and the encoding, the advice grew {@code dispatch} from 91
 * bytecodes to 682, so every API's call into it stayed a real call and the code behind it was
 * compiled without its callers' context, about 2% of the async cold-key throughput. Here every method
 * stays small enough to be inlined.
 */
public final class LettuceHelpers {
  static final String SOURCE_PACKAGE = "io/hotkey/agent/instrument/lettuce/v6/helper/";
  static final List<String> HELPERS = List.of("Dispatcher");

  /** A Lettuce copy whose helpers could not be defined: its commands pass through untouched. */
  private static final LettuceDispatch PASS_THROUGH = new LettuceDispatch() {
    @Override
    public Object dispatch(Object connection, Object command) {
      return null;
    }

    @Override
    public void dispatchBatch(Object connection, Collection<?> commands) {}
  };

  private static final ClassValue<LettuceDispatch> BY_HANDLER = new ClassValue<LettuceDispatch>() {
    @Override
    protected LettuceDispatch computeValue(Class<?> handler) {
      try {
        return (LettuceDispatch) HelperClasses.inject(handler, SOURCE_PACKAGE, HELPERS, UnaryOperator.identity())
            .getConstructor().newInstance();
      } catch (Throwable t) {
        RedisHooks.error("defining the Lettuce helpers next to " + handler.getName() + " in "
            + handler.getClassLoader() + " (its commands pass through untouched)", t);
        return PASS_THROUGH;
      }
    }
  };

  private LettuceHelpers() {}

  /** @param handler the instrumented {@code RedisChannelHandler} class */
  public static LettuceDispatch dispatch(Class<?> handler) {
    return BY_HANDLER.get(handler);
  }
}
