package io.hotkey.agent.instrument;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.util.List;
import java.util.function.UnaryOperator;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.commons.ClassRemapper;
import net.bytebuddy.jar.asm.commons.Remapper;

/**
 * Classes an instrumentation compiles against its library, which the agent's own class loader (the
 * system one) must never load: it does not see the library in every application (a Spring Boot jar's
 * libraries are in a loader below it), and where it does, it could pick another copy than the one in
 * use. Their class files are read from the agent jar, renamed into the package of an anchor class of
 * the library ({@code HotkeyAgent} + their simple name) and defined next to it with a
 * {@link MethodHandles#privateLookupIn private lookup} ({@code Lookup.defineClass}: no
 * {@code sun.misc.Unsafe}, no reflective {@code ClassLoader.defineClass}). They then link against
 * exactly the library the anchor was loaded with, and see the agent's classes as the inlined advice does.
 * Callers keep what they get per anchor class (a {@link ClassValue}).
 */
public final class HelperClasses {
  public static final String PREFIX = "HotkeyAgent";

  private HelperClasses() {}

  /**
   * Defines the helpers next to {@code anchor}, once per class loader.
   *
   * @param sourcePackage the helpers' package in the agent jar, internal form ({@code a/b/})
   * @param helpers their simple names, none extending another, in definition order: a class the
   *     verifier loads to check another comes first, and the entry point last, so that a loader
   *     left half-done by a failure never has an entry point
   * @param otherNames renames any other internal name they use (identity for most)
   * @return the entry point
   */
  public static Class<?> inject(Class<?> anchor, String sourcePackage, List<String> helpers,
      UnaryOperator<String> otherNames) throws Exception {
    MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(anchor, MethodHandles.lookup());
    String targetPackage = internalPackage(anchor);
    String entry = helpers.get(helpers.size() - 1);
    synchronized (HelperClasses.class) {
      try {
        return Class.forName(injectedName(targetPackage, entry), false, anchor.getClassLoader());
      } catch (ClassNotFoundException notYet) {
        Class<?> defined = null;
        for (String helper : helpers) {
          defined = lookup.defineClass(renamedBytes(sourcePackage, helper, targetPackage, otherNames));
        }
        return defined;
      }
    }
  }

  /** The class file of {@code helper} with its names moved into {@code targetPackage}. */
  public static byte[] renamedBytes(String sourcePackage, String helper, String targetPackage,
      UnaryOperator<String> otherNames) throws IOException {
    String resource = sourcePackage + helper + ".class";
    byte[] original;
    ClassLoader own = HelperClasses.class.getClassLoader();
    try (InputStream in = own == null ? ClassLoader.getSystemResourceAsStream(resource) : own.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IOException("agent class file not found: " + resource);
      }
      original = in.readAllBytes();
    }
    ClassWriter writer = new ClassWriter(0);
    new ClassReader(original).accept(new ClassRemapper(writer, new Remapper() {
      @Override
      public String map(String internalName) {
        return internalName.startsWith(sourcePackage)
            ? targetPackage + PREFIX + internalName.substring(sourcePackage.length())
            : otherNames.apply(internalName);
      }
    }), 0);
    return writer.toByteArray();
  }

  private static String injectedName(String targetPackage, String helper) {
    return (targetPackage + PREFIX + helper).replace('/', '.');
  }

  private static String internalPackage(Class<?> type) {
    String name = type.getName();
    return name.substring(0, name.lastIndexOf('.') + 1).replace('.', '/');
  }
}
