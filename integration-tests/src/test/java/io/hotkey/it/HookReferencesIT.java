package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import net.bytebuddy.description.field.FieldDescription;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.jar.asm.AnnotationVisitor;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.Handle;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.jar.asm.Type;
import net.bytebuddy.pool.TypePool;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The idea of OpenTelemetry's muzzle: for every client version the tests pin, every class, method
 * and field of the client that the shipped agent's advice and helpers reference resolves against
 * that version's jars, and every field an advice reads with {@code @Advice.FieldValue} exists on
 * the class it is woven into. A client release that renames or removes what a hook needs then fails
 * here, with the missing references named, before any JVM runs it. And the classes the agent's own
 * loader loads to install a module reference no client class at all.
 */
class HookReferencesIT {
  private static final String[] CLIENT_PACKAGES = {
    "redis/clients/",
    "io/lettuce/",
    "io/netty/",
    "reactor/",
    "jakarta/servlet/",
    "javax/servlet/",
    "org/springframework/"
  };

  /**
   * The WebFlux module's helpers defined next to Netty, which reference Netty only: checked against
   * a classpath with Netty, not spring-web's.
   */
  private static final String NETTY_HELPERS = "webflux/netty/";

  /** Where each advice that reads a field is woven, for its {@code @Advice.FieldValue} names. */
  private static final Map<String, String> WOVEN_INTO =
      Map.of(
          "JedisExecuteCommandAdvice", "redis.clients.jedis.Connection",
          "JedisSendCommandAdvice", "redis.clients.jedis.Connection",
          "Jedis3SendCommandAdvice", "redis.clients.jedis.Connection",
          "LettuceAddKeyAdvice", "io.lettuce.core.protocol.CommandArgs",
          "LettuceAddValueAdvice", "io.lettuce.core.protocol.CommandArgs",
          "LettuceEndpointWriteAdvice", "io.lettuce.core.protocol.DefaultEndpoint",
          "LettuceCommandDoneAdvice", "io.lettuce.core.protocol.Command",
          "LettuceHandshakeAdvice", "io.lettuce.core.RedisHandshake",
          "LettuceTlsChannelAdvice", "io.lettuce.core.SslConnectionBuilder$SslChannelInitializer");

  /**
   * The oldest and newest release of every line the Jedis 3, Jedis 4+ and Lettuce 6+ modules claim.
   */
  static Stream<Arguments> clients() {
    Map<String, List<String>> packages =
        Map.of(
            VersionMatrix.JEDIS_3, List.of("jedis/v3_0/", "jedis/common/"),
            VersionMatrix.JEDIS_4, List.of("jedis/v4_0/", "jedis/common/"),
            // the WebFlux module's Netty helpers against the Netty 4.1 of each Lettuce 6 release
            VersionMatrix.LETTUCE_6, List.of("lettuce/v6_0/", NETTY_HELPERS));
    return Stream.concat(
        VersionMatrix.LINES.stream()
            .filter(l -> packages.containsKey(l.module()))
            .flatMap(
                l ->
                    l.releases().stream()
                        .map(r -> Arguments.of(l.client().folder, r, packages.get(l.module())))),
        Clients.SPRING_WEB.stream().map(v -> Arguments.of("spring-web", v, List.of("webflux/"))));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("clients")
  void everyClientReferenceOfTheAdviceResolves(String client, String version, List<String> packages)
      throws IOException {
    TreeSet<String> missing = new TreeSet<>();
    int checked = check(client, version, packages, missing);
    assertTrue(checked >= 3, "too few references checked: " + checked);
    if (client.equals("lettuce")) {
      missing.removeIf(reference -> unreachedOnLettuce6(version, reference));
    }
    assertEquals(
        new TreeSet<>(),
        missing,
        client + " " + version + ": references of the agent that do not resolve");
  }

  /**
   * What the Lettuce 6 module references that an older 6.x release lacks, each never reached there:
   * the credentials provider of Lettuce 6.2 ({@code LettuceLogins} falls back to {@code
   * ConnectionState}'s own login when {@code getCredentialsProvider} is missing), and {@code
   * VoidOutput} of 6.0.2 ({@code LettuceStaleAnswers} then fails to initialize, and no read is
   * answered stale after it was sent).
   */
  private static boolean unreachedOnLettuce6(String version, String reference) {
    boolean before62 = version.startsWith("6.0.") || version.startsWith("6.1.");
    boolean before602 = version.equals("6.0.0.RELEASE") || version.equals("6.0.1.RELEASE");
    return (before62
            && List.of(
                    "LettuceLogins: class io/lettuce/core/RedisCredentials",
                    "LettuceLogins: class io/lettuce/core/RedisCredentialsProvider",
                    "LettuceLogins: class"
                        + " io/lettuce/core/RedisCredentialsProvider$ImmediateRedisCredentialsProvider",
                    "LettuceLogins: method io/lettuce/core/ConnectionState.getCredentialsProvider()"
                        + "Lio/lettuce/core/RedisCredentialsProvider;")
                .contains(reference))
        || (before602
            && reference.equals("LettuceStaleAnswers: class io/lettuce/core/output/VoidOutput"));
  }

  /**
   * The check bites: Lettuce 5 lacks what the Lettuce 6 module's hooks it does not weave
   * (handshake, serve-stale) reference.
   */
  @org.junit.jupiter.api.Test
  void aClientLineTheHooksDoNotFitIsCaught() throws IOException {
    TreeSet<String> missing = new TreeSet<>();
    check("lettuce", Clients.LETTUCE_5, List.of("lettuce/v6_0/"), missing);
    assertTrue(!missing.isEmpty(), "Lettuce 5 resolved every reference of the Lettuce 6 hooks");
  }

  /** The classes of {@code lettuce/v6_0} that the Lettuce 5 module weaves (advice) or defines. */
  private static final List<String> LETTUCE_5_CLASSES =
      List.of(
          "LettuceDispatchAdvice",
          "LettuceDispatchBatchAdvice",
          "LettuceAutoFlushAdvice",
          "LettuceConnectionResetAdvice",
          "LettuceEndpointWriteAdvice",
          "LettuceCommandDoneAdvice",
          "LettuceAddKeyAdvice",
          "LettuceAddValueAdvice",
          "LettuceReplyBytesAdvice",
          "LettuceReplyErrorAdvice",
          "LettuceReplyLongAdvice",
          "LettuceReplyAggregateAdvice",
          "EncodedArgsField",
          "LettuceArgumentsBuffer",
          "LettuceArguments",
          "LettuceReplay",
          "LettuceConnectionCheck",
          "LocalAnswerSpan",
          "LettuceLogins");

  /**
   * What those classes reference that Lettuce 5 lacks, each never reached there: Lettuce 6's
   * tracing API ({@code LocalAnswerSpan} checks for it once), the login of Lettuce 6's handshake
   * ({@code LettuceLogins} is called only for a channel's server), and the output callbacks of
   * RESP3 replies, which Lettuce 5 never decodes ({@code LettuceReplay} opens arrays with {@code
   * multi} where {@code multiArray} is absent).
   */
  private static boolean unreachedOnLettuce5(String reference) {
    return reference.startsWith("LocalAnswerSpan: ")
        || reference.startsWith("LettuceLogins: ")
        || List.of(
                "LettuceReplay: method io/lettuce/core/output/CommandOutput.multiArray(I)V",
                "LettuceReplay: method io/lettuce/core/output/CommandOutput.multiSet(I)V",
                "LettuceReplay: method io/lettuce/core/output/CommandOutput.multiMap(I)V",
                "LettuceReplay: method io/lettuce/core/output/CommandOutput.set(D)V",
                "LettuceReplay: method io/lettuce/core/output/CommandOutput.set(Z)V",
                "LettuceReplay: method"
                    + " io/lettuce/core/output/CommandOutput.setBigNumber(Ljava/nio/ByteBuffer;)V")
            .contains(reference);
  }

  static List<String> lettuce5() {
    return Clients.LETTUCE_5_MATRIX;
  }

  @ParameterizedTest(name = "lettuce {0}")
  @MethodSource("lettuce5")
  void everyReferenceTheLettuce5ModuleReachesResolves(String version) throws IOException {
    TreeSet<String> missing = new TreeSet<>();
    int checked =
        check(
            "lettuce",
            version,
            LETTUCE_5_CLASSES.stream().map(c -> "lettuce/v6_0/" + c + ".class").toList(),
            missing);
    System.out.println("[it] lettuce " + version + ": unreached references " + missing);
    assertTrue(checked >= 50, "too few references checked: " + checked);
    missing.removeIf(HookReferencesIT::unreachedOnLettuce5);
    assertEquals(
        new TreeSet<>(),
        missing,
        "lettuce " + version + ": references of the agent that do not resolve");
  }

  /**
   * Modules and type instrumentations are loaded by the agent's loader before any client class,
   * which cannot see the clients in every application: they name client classes by their names
   * only, and leave the references to advice and helpers.
   */
  @org.junit.jupiter.api.Test
  void modulesReferenceNoClientClass() throws IOException {
    TreeSet<String> referenced = new TreeSet<>();
    int modules = 0;
    try (JarFile agent = new JarFile(ItConfig.agentJar().toFile())) {
      Enumeration<JarEntry> entries = agent.entries();
      while (entries.hasMoreElements()) {
        JarEntry entry = entries.nextElement();
        if (!entry.getName().startsWith("io/hotkey/agent/instrument/")
            || !entry.getName().endsWith(".class")) {
          continue;
        }
        try (InputStream in = agent.getInputStream(entry)) {
          References refs = new References();
          new ClassReader(in.readAllBytes()).accept(refs, ClassReader.SKIP_FRAMES);
          if (refs.installsAModule()) {
            modules++;
            referenced.addAll(refs.clientReferences());
          }
        }
      }
    }
    assertTrue(modules >= 10, "too few modules and type instrumentations found: " + modules);
    assertEquals(new TreeSet<>(), referenced, "client classes referenced by module classes");
  }

  private static int check(
      String client, String version, List<String> packages, SortedSet<String> missing)
      throws IOException {
    String classpath =
        client.equals("jedis")
            ? Clients.jedisClasspath(version)
            : client.equals("spring-web")
                ? Clients.springWebClasspath(version)
                : Clients.lettuceClasspath(version);
    List<ClassFileLocator> jars = new ArrayList<>();
    for (String entry : classpath.split(File.pathSeparator)) {
      if (entry.endsWith(".jar")) {
        jars.add(ClassFileLocator.ForJarFile.of(new File(entry)));
      }
    }
    jars.add(ClassFileLocator.ForClassLoader.ofPlatformLoader());
    TypePool pool = TypePool.Default.of(new ClassFileLocator.Compound(jars));
    Map<String, References> agentClasses = new HashMap<>();
    try (JarFile agent = new JarFile(ItConfig.agentJar().toFile())) {
      Enumeration<JarEntry> entries = agent.entries();
      while (entries.hasMoreElements()) {
        JarEntry entry = entries.nextElement();
        String name = entry.getName();
        if (!name.endsWith(".class")
            || packages.stream().noneMatch(p -> name.contains("/instrument/" + p))
            || (name.contains("/instrument/" + NETTY_HELPERS)
                && !packages.contains(NETTY_HELPERS))) {
          continue;
        }
        try (InputStream in = agent.getInputStream(entry)) {
          References refs = new References();
          new ClassReader(in.readAllBytes()).accept(refs, ClassReader.SKIP_FRAMES);
          agentClasses.put(refs.name, refs);
        }
      }
    }
    int checked = 0;
    for (References refs : agentClasses.values()) {
      checked += refs.check(pool, agentClasses, missing);
    }
    return checked;
  }

  /**
   * The client references one agent class makes: types, methods, fields, and its advice's field
   * values.
   */
  private static final class References extends ClassVisitor {
    private final List<String[]> methods = new ArrayList<>();
    private final List<String[]> fields = new ArrayList<>();
    private final List<String> types = new ArrayList<>();
    private final List<String> fieldValues = new ArrayList<>();

    /** Calls on an agent class (its own methods, or those it inherits from a client class). */
    private final List<String[]> agentMethods = new ArrayList<>();

    private final Set<String> declared = new HashSet<>();
    private String name;
    private String simpleName;
    private String superName;
    private List<String> interfaces = List.of();

    References() {
      super(Opcodes.ASM9);
    }

    @Override
    public void visit(
        int version,
        int access,
        String name,
        String signature,
        String superName,
        String[] interfaces) {
      this.name = name;
      simpleName = name.substring(name.lastIndexOf('/') + 1);
      this.superName = superName;
      this.interfaces = interfaces == null ? List.of() : List.of(interfaces);
    }

    @Override
    public MethodVisitor visitMethod(
        int access, String name, String descriptor, String signature, String[] exceptions) {
      declared.add(name + descriptor);
      for (Type t : Type.getArgumentTypes(descriptor)) {
        type(t);
      }
      type(Type.getReturnType(descriptor));
      return new MethodVisitor(Opcodes.ASM9) {
        @Override
        public void visitMethodInsn(
            int opcode, String owner, String method, String desc, boolean itf) {
          if (isClient(owner)) {
            methods.add(new String[] {owner, method, desc});
          } else {
            agentMethods.add(new String[] {owner, method, desc});
          }
        }

        @Override
        public void visitFieldInsn(int opcode, String owner, String field, String desc) {
          if (isClient(owner)) {
            fields.add(new String[] {owner, field});
          }
        }

        @Override
        public void visitTypeInsn(int opcode, String type) {
          type(Type.getObjectType(type));
        }

        @Override
        public void visitLdcInsn(Object value) {
          constant(value);
        }

        @Override
        public void visitInvokeDynamicInsn(
            String name, String descriptor, Handle bootstrap, Object... arguments) {
          for (Object argument : arguments) {
            constant(argument);
          }
        }

        @Override
        public AnnotationVisitor visitParameterAnnotation(
            int parameter, String annotation, boolean visible) {
          if (!annotation.endsWith("asm/Advice$FieldValue;")) {
            return null;
          }
          return new AnnotationVisitor(Opcodes.ASM9) {
            @Override
            public void visit(String key, Object value) {
              if (key.equals("value")) {
                fieldValues.add((String) value);
              }
            }
          };
        }
      };
    }

    /** A class literal, or a method handle (a lambda's or method reference's target). */
    private void constant(Object value) {
      if (value instanceof Type type && type.getSort() != Type.METHOD) {
        type(type);
      } else if (value instanceof Handle handle && isClient(handle.getOwner())) {

        methods.add(new String[] {handle.getOwner(), handle.getName(), handle.getDesc()});
      }
    }

    private void type(Type t) {
      Type element = t.getSort() == Type.ARRAY ? t.getElementType() : t;
      if (element.getSort() == Type.OBJECT && isClient(element.getInternalName())) {
        types.add(element.getInternalName());
      }
    }

    /**
     * Whether this class implements {@code InstrumentationModule} or {@code TypeInstrumentation}.
     */
    boolean installsAModule() {
      return interfaces.contains("io/hotkey/agent/instrument/InstrumentationModule")
          || interfaces.contains("io/hotkey/agent/instrument/TypeInstrumentation");
    }

    /** Every client class, method and field this class references, named. */
    List<String> clientReferences() {
      List<String> all = new ArrayList<>();
      types.forEach(type -> all.add(simpleName + ": class " + type));
      methods.forEach(m -> all.add(simpleName + ": method " + m[0] + "." + m[1] + m[2]));
      fields.forEach(f -> all.add(simpleName + ": field " + f[0] + "." + f[1]));
      return all;
    }

    private static boolean isClient(String internalName) {
      for (String p : CLIENT_PACKAGES) {
        if (internalName.startsWith(p)) {
          return true;
        }
      }
      return false;
    }

    /**
     * @param agentClasses the agent classes checked with this one, by internal name: a call on one
     *     of them (a helper calling a method it inherits from the client class it extends, often on
     *     itself) resolves in its client supertypes when none of them declares it
     */
    int check(TypePool pool, Map<String, References> agentClasses, SortedSet<String> missing) {
      int inherited = 0;
      for (String[] m : agentMethods) {
        List<String> clientSupertypes = new ArrayList<>();
        References owner = agentClasses.get(m[0]);
        boolean declaredByAgent = false;
        while (owner != null && !declaredByAgent) {
          declaredByAgent = owner.declared.contains(m[1] + m[2]);
          owner.interfaces.stream().filter(References::isClient).forEach(clientSupertypes::add);
          if (owner.superName != null && isClient(owner.superName)) {
            clientSupertypes.add(owner.superName);
          }
          owner = owner.superName == null ? null : agentClasses.get(owner.superName);
        }
        if (declaredByAgent || clientSupertypes.isEmpty()) {
          continue;
        }
        inherited++;
        boolean found = false;
        for (String supertype : clientSupertypes) {
          TypePool.Resolution resolution = pool.describe(supertype.replace('/', '.'));
          found |= resolution.isResolved() && hasMethod(resolution.resolve(), m[1], m[2]);
        }
        if (!found) {
          missing.add(simpleName + ": inherited method " + clientSupertypes + "." + m[1] + m[2]);
        }
      }
      for (String type : types) {
        if (!pool.describe(type.replace('/', '.')).isResolved()) {
          missing.add(simpleName + ": class " + type);
        }
      }
      for (String[] m : methods) {
        TypePool.Resolution owner = pool.describe(m[0].replace('/', '.'));
        if (!owner.isResolved()) {
          missing.add(simpleName + ": class " + m[0]);
        } else if (!hasMethod(owner.resolve(), m[1], m[2])) {
          missing.add(simpleName + ": method " + m[0] + "." + m[1] + m[2]);
        }
      }
      for (String[] f : fields) {
        TypePool.Resolution owner = pool.describe(f[0].replace('/', '.'));
        if (!owner.isResolved() || !hasField(owner.resolve(), f[1])) {
          missing.add(simpleName + ": field " + f[0] + "." + f[1]);
        }
      }
      String wovenInto = WOVEN_INTO.get(simpleName);
      if (!fieldValues.isEmpty() && wovenInto == null) {
        missing.add(
            simpleName + ": reads fields " + fieldValues + " of a class this test does not know");
      }
      for (String field : fieldValues) {
        TypePool.Resolution woven = wovenInto == null ? null : pool.describe(wovenInto);
        if (woven != null && (!woven.isResolved() || !hasField(woven.resolve(), field))) {
          missing.add(simpleName + ": field " + wovenInto + "." + field + " (@Advice.FieldValue)");
        }
      }
      return types.size() + methods.size() + fields.size() + fieldValues.size() + inherited;
    }

    private static boolean hasMethod(TypeDescription type, String name, String descriptor) {
      List<TypeDescription> owners = hierarchy(type);
      // an interface's method resolution ends at Object's public methods, as the JVM's does
      owners.add(TypeDescription.ForLoadedType.of(Object.class));
      for (TypeDescription t : owners) {
        for (MethodDescription.InDefinedShape m : t.getDeclaredMethods()) {
          if (m.getInternalName().equals(name) && m.getDescriptor().equals(descriptor)) {
            return true;
          }
        }
      }
      return false;
    }

    private static boolean hasField(TypeDescription type, String name) {
      for (TypeDescription t : hierarchy(type)) {
        for (FieldDescription.InDefinedShape f : t.getDeclaredFields()) {
          if (f.getName().equals(name)) {
            return true;
          }
        }
      }
      return false;
    }

    /** The type, its superclasses and all their interfaces. */
    private static List<TypeDescription> hierarchy(TypeDescription type) {
      List<TypeDescription> all = new ArrayList<>();
      List<TypeDescription> todo = new ArrayList<>(List.of(type));
      while (!todo.isEmpty()) {
        TypeDescription t = todo.remove(todo.size() - 1);
        if (all.contains(t)) {
          continue;
        }
        all.add(t);
        if (t.getSuperClass() != null) {
          todo.add(t.getSuperClass().asErasure());
        }
        todo.addAll(t.getInterfaces().asErasures());
      }
      return all;
    }
  }
}
