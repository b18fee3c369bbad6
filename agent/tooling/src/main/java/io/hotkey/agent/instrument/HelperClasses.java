package io.hotkey.agent.instrument;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.commons.ClassRemapper;
import net.bytebuddy.jar.asm.commons.Remapper;

/**
 * Classes an instrumentation compiles against its library, which the agent's own class loader (the
 * system one) must never load: it does not see the library in every application (a Spring Boot
 * jar's libraries are in a loader below it), and where it does, it could pick another copy than the
 * one in use. Their class files are read from the agent jar, renamed into the package of an anchor
 * class of the library ({@value #PREFIX} + their simple name) and defined next to it with a {@link
 * MethodHandles#privateLookupIn private lookup} ({@code Lookup.defineClass}: no {@code
 * sun.misc.Unsafe}, no reflective {@code ClassLoader.defineClass}). They then link against exactly
 * the library the anchor was loaded with, and see the agent's classes as inlined advice does.
 *
 * <p>Advice that calls a helper is read through {@link #renamingLocator}, which gives it the
 * helper's injected name.
 */
public final class HelperClasses {
  public static final String PREFIX = "HotkeyAgent";

  private final String anchor;
  private final String sourcePackage;
  private final List<String> helpers;
  private final UnaryOperator<String> otherNames;
  private final String targetPackage;

  /**
   * The renamed class files, read from the agent jar when the set is made (at the agent's start):
   * defining them happens on an application's thread, often its first request's, which may be an
   * event loop that must not wait on file I/O.
   */
  private final Map<String, byte[]> renamed;

  private final Map<ClassLoader, Boolean> definedIn = new WeakHashMap<>();
  private final ClassValue<Class<?>> entryByAnchor =
      new ClassValue<Class<?>>() {
        @Override
        protected Class<?> computeValue(Class<?> anchorClass) {
          try {
            return define(anchorClass);
          } catch (Exception e) {
            throw new IllegalStateException(
                "defining " + helpers + " next to " + anchorClass.getName(), e);
          }
        }
      };

  /**
   * @param anchor a class of the library that nothing instruments and that loads nothing else (it
   *     is loaded while a class of that loader is being transformed)
   * @param sourcePackage the helpers' package in the agent jar, internal form ({@code a/b/})
   * @param helpers their simple names, none extending another, in definition order: a class the
   *     verifier loads to check another comes first, and the entry point last, so that a loader
   *     left half-done by a failure never has an entry point
   * @param otherNames renames any other internal name the helpers use
   * @throws UncheckedIOException if a helper's class file cannot be read from the agent jar
   */
  public HelperClasses(
      String anchor, String sourcePackage, List<String> helpers, UnaryOperator<String> otherNames) {
    this.anchor = anchor;
    this.sourcePackage = sourcePackage;
    this.helpers = List.copyOf(helpers);
    this.otherNames = otherNames;
    this.targetPackage = anchor.substring(0, anchor.lastIndexOf('.') + 1).replace('.', '/');
    Map<String, byte[]> classFiles = new HashMap<>();
    for (String helper : this.helpers) {
      try {
        classFiles.put(helper, readRenamed(helper));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    this.renamed = Map.copyOf(classFiles);
  }

  public HelperClasses(String anchor, String sourcePackage, List<String> helpers) {
    this(anchor, sourcePackage, helpers, UnaryOperator.identity());
  }

  /**
   * Defines the helpers in {@code loader}, next to the anchor, once per loader.
   *
   * @return the entry point (the last helper)
   */
  public Class<?> injectInto(ClassLoader loader) throws ClassNotFoundException {
    return entryByAnchor.get(Class.forName(anchor.replace('/', '.'), false, loader));
  }

  /** The binary name a helper gets once injected. */
  public String injectedName(String helper) {
    return (targetPackage + PREFIX + helper).replace('/', '.');
  }

  /** The class file of {@code helper} with its names moved into the anchor's package. */
  public byte[] renamedBytes(String helper) {
    byte[] classFile = renamed.get(helper);
    if (classFile == null) {
      throw new IllegalArgumentException("not a helper of this set: " + helper);
    }
    return classFile.clone();
  }

  private byte[] readRenamed(String helper) throws IOException {
    String resource = sourcePackage + helper + ".class";
    byte[] original;
    ClassLoader own = HelperClasses.class.getClassLoader();
    try (InputStream in =
        own == null
            ? ClassLoader.getSystemResourceAsStream(resource)
            : own.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IOException("agent class file not found: " + resource);
      }
      original = in.readAllBytes();
    }
    return remap(original, this::renameForHelper);
  }

  /**
   * Agent classes as {@code agentClasses} has them, but calling the given helpers by their injected
   * names: for advice inlined into a library whose loader has them. Each class file is read and
   * renamed once: every class woven reads its advice again.
   */
  public static ClassFileLocator renamingLocator(
      ClassFileLocator agentClasses, List<HelperClasses> helpers) {
    UnaryOperator<String> names =
        internalName -> {
          for (HelperClasses set : helpers) {
            String renamed = set.injectedInternalName(internalName);
            if (renamed != null) {
              return renamed;
            }
          }
          return internalName;
        };
    Map<String, byte[]> renamedFiles = new ConcurrentHashMap<>();
    return new ClassFileLocator() {
      @Override
      public Resolution locate(String name) throws IOException {
        byte[] known = renamedFiles.get(name);
        if (known != null) {
          return new Resolution.Explicit(known.clone());
        }
        Resolution found = agentClasses.locate(name);
        if (!found.isResolved()) {
          return found;
        }
        byte[] renamedFile = remap(found.resolve(), names);
        renamedFiles.put(name, renamedFile);
        return new Resolution.Explicit(renamedFile.clone());
      }

      @Override
      public void close() throws IOException {
        agentClasses.close();
      }
    };
  }

  private Class<?> define(Class<?> anchorClass) throws Exception {
    ClassLoader loader = anchorClass.getClassLoader();
    String entry = injectedName(helpers.get(helpers.size() - 1));
    // a ClassValue may compute twice in a race; the second must find what the first defined
    synchronized (definedIn) {
      if (definedIn.containsKey(loader)) {
        return Class.forName(entry, false, loader);
      }
      MethodHandles.Lookup lookup =
          MethodHandles.privateLookupIn(anchorClass, MethodHandles.lookup());
      Class<?> defined = null;
      for (String helper : helpers) {
        defined = lookup.defineClass(renamedBytes(helper));
      }
      definedIn.put(loader, Boolean.TRUE);
      return defined;
    }
  }

  /** The injected internal name of one of these helpers, or null. */
  private String injectedInternalName(String internalName) {
    if (internalName.startsWith(sourcePackage)
        && helpers.contains(internalName.substring(sourcePackage.length()))) {
      return targetPackage + PREFIX + internalName.substring(sourcePackage.length());
    }
    return null;
  }

  private String renameForHelper(String internalName) {
    String injected = injectedInternalName(internalName);
    return injected != null ? injected : otherNames.apply(internalName);
  }

  private static byte[] remap(byte[] classFile, UnaryOperator<String> names) {
    ClassWriter writer = new ClassWriter(0);
    new ClassReader(classFile)
        .accept(
            new ClassRemapper(
                writer,
                new Remapper() {
                  @Override
                  public String map(String internalName) {
                    return names.apply(internalName);
                  }
                }),
            0);
    return writer.toByteArray();
  }
}
