package io.hotkey.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.source.util.JavacTask;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import javax.lang.model.element.Element;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.StandardLocation;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The entry class must load and run its version check on a Java 8 JVM, which this machine does not
 * have. So its class file is checked instead: it is version 52 (Java 8), and every class, field and
 * method it refers to exists in Java 8's API as {@code javac --release 8} knows it (the JDK's
 * record of each release's API, {@code lib/ct.sym}).
 */
class HotkeyAgentClassFileTest {
  private static final int JAVA_8_CLASS_FILE = 52;

  private static Java8Api java8;

  @BeforeAll
  static void loadJava8Api() {
    java8 = new Java8Api();
  }

  @Test
  void isCompiledForJava8() throws IOException {
    assertEquals(JAVA_8_CLASS_FILE, EntryClassFile.read(HotkeyAgent.class).majorVersion);
  }

  @Test
  void refersToNothingOutsideJava8sApi() throws IOException {
    EntryClassFile entry = EntryClassFile.read(HotkeyAgent.class);
    List<String> missing = new ArrayList<>();
    for (String type : entry.types) {
      if (!type.equals(entry.name) && !java8.hasType(type)) {
        missing.add(type);
      }
    }
    for (MemberReference member : entry.members) {
      if (!member.owner.equals(entry.name) && !java8.hasMember(member)) {
        missing.add(member.toString());
      }
    }
    assertEquals(List.of(), missing, "references outside Java 8's API");
    // what the check saw, so that an empty list above cannot come from reading nothing
    assertTrue(
        entry.types.contains("java/lang/instrument/Instrumentation"), () -> "" + entry.types);
    assertTrue(
        entry.members.stream().anyMatch(m -> m.owner.equals("java/lang/Class")),
        () -> "" + entry.members);
  }

  /** Without this, a check against the running JDK's API would pass the same references. */
  @Test
  void theApiCheckedAgainstIsJava8s() {
    assertTrue(java8.hasType("java/lang/String"));
    assertTrue(java8.hasMember(new MemberReference("java/lang/String", "isEmpty", "()Z")));
    assertTrue(
        java8.hasMember(
            new MemberReference("java/lang/Integer", "parseInt", "(Ljava/lang/String;)I")));
    assertFalse(java8.hasMember(new MemberReference("java/lang/String", "isBlank", "()Z")));
    assertFalse(java8.hasType("java/lang/Runtime$Version"));
    assertFalse(java8.hasType("java/lang/ProcessHandle"));
    assertFalse(java8.hasType("io/hotkey/agent/AgentEntry"));
  }

  /** A field or method reference in the constant pool: owner and name in internal form. */
  private static final class MemberReference {
    final String owner;
    final String name;
    final String descriptor;

    MemberReference(String owner, String name, String descriptor) {
      this.owner = owner;
      this.name = name;
      this.descriptor = descriptor;
    }

    @Override
    public String toString() {
      return owner + "." + name + ":" + descriptor;
    }
  }

  /**
   * The parts of a class file that name other classes: its constant pool's classes, field and
   * method references and method types, and its own fields' and methods' descriptors.
   */
  private static final class EntryClassFile {
    private static final int UTF8 = 1;
    private static final int INTEGER = 3;
    private static final int FLOAT = 4;
    private static final int LONG = 5;
    private static final int DOUBLE = 6;
    private static final int CLASS = 7;
    private static final int STRING = 8;
    private static final int FIELD_REF = 9;
    private static final int METHOD_REF = 10;
    private static final int INTERFACE_METHOD_REF = 11;
    private static final int NAME_AND_TYPE = 12;
    private static final int METHOD_HANDLE = 15;
    private static final int METHOD_TYPE = 16;
    private static final int INVOKE_DYNAMIC = 18;

    int majorVersion;
    String name;
    final Set<String> types = new LinkedHashSet<>();
    final List<MemberReference> members = new ArrayList<>();

    static EntryClassFile read(Class<?> type) throws IOException {
      try (InputStream in = type.getResourceAsStream(type.getSimpleName() + ".class")) {
        EntryClassFile file = new EntryClassFile();
        file.parse(new DataInputStream(in));
        return file;
      }
    }

    private void parse(DataInputStream in) throws IOException {
      assertEquals(0xCAFEBABE, in.readInt(), "class file magic");
      in.readUnsignedShort();
      majorVersion = in.readUnsignedShort();
      int count = in.readUnsignedShort();
      int[] tags = new int[count];
      String[] utf8 = new String[count];
      int[] first = new int[count];
      int[] second = new int[count];
      for (int i = 1; i < count; i++) {
        tags[i] = in.readUnsignedByte();
        switch (tags[i]) {
          case UTF8 -> utf8[i] = in.readUTF();
          case CLASS, STRING, METHOD_TYPE -> first[i] = in.readUnsignedShort();
          case INTEGER, FLOAT -> in.readInt();
          case LONG, DOUBLE -> {
            in.readLong();
            i++; // takes two entries
          }
          case FIELD_REF, METHOD_REF, INTERFACE_METHOD_REF, NAME_AND_TYPE, INVOKE_DYNAMIC -> {
            first[i] = in.readUnsignedShort();
            second[i] = in.readUnsignedShort();
          }
          case METHOD_HANDLE -> {
            in.readUnsignedByte();
            first[i] = in.readUnsignedShort();
          }
          default -> throw new AssertionError("constant pool tag " + tags[i] + " at " + i);
        }
      }
      for (int i = 1; i < count; i++) {
        switch (tags[i]) {
          case CLASS -> addType(utf8[first[i]]);
          case METHOD_TYPE -> addDescriptorTypes(utf8[first[i]]);
          case FIELD_REF, METHOD_REF, INTERFACE_METHOD_REF -> {
            String owner = utf8[first[first[i]]];
            int nameAndType = second[i];
            String descriptor = utf8[second[nameAndType]];
            members.add(new MemberReference(owner, utf8[first[nameAndType]], descriptor));
            addType(owner);
            addDescriptorTypes(descriptor);
          }
          case INVOKE_DYNAMIC -> addDescriptorTypes(utf8[second[second[i]]]);
          default -> {}
        }
      }
      in.readUnsignedShort();
      name = utf8[first[in.readUnsignedShort()]];
      in.readUnsignedShort();
      int interfaces = in.readUnsignedShort();
      for (int i = 0; i < interfaces; i++) {
        in.readUnsignedShort();
      }
      for (int kind = 0; kind < 2; kind++) { // fields, then methods
        int memberCount = in.readUnsignedShort();
        for (int m = 0; m < memberCount; m++) {
          in.readUnsignedShort();
          in.readUnsignedShort();
          addDescriptorTypes(utf8[in.readUnsignedShort()]);
          skipAttributes(in);
        }
      }
    }

    private static void skipAttributes(DataInputStream in) throws IOException {
      int attributes = in.readUnsignedShort();
      for (int a = 0; a < attributes; a++) {
        in.readUnsignedShort();
        in.skipNBytes(in.readInt() & 0xFFFFFFFFL);
      }
    }

    /** A CONSTANT_Class names a class, or an array type by its descriptor. */
    private void addType(String internalName) {
      if (internalName.startsWith("[")) {
        addDescriptorTypes(internalName);
      } else {
        types.add(internalName);
      }
    }

    private void addDescriptorTypes(String descriptor) {
      int at = 0;
      while ((at = descriptor.indexOf('L', at)) >= 0) {
        int end = descriptor.indexOf(';', at);
        // an 'L' inside a class name is skipped with it: names are read from 'L' to ';'
        types.add(descriptor.substring(at + 1, end));
        at = end + 1;
      }
    }
  }

  /** Java 8's API as javac's {@code --release 8} presents it, through the compiler API. */
  private static final class Java8Api {
    private final Elements elements;
    private final Types typeUtils;

    Java8Api() {
      JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
      JavaFileObject probe =
          new SimpleJavaFileObject(URI.create("string:///Probe.java"), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
              return "class Probe {}";
            }
          };
      // an empty class path, or the test's own (with the agent's classes) would count as API
      StandardJavaFileManager files = javac.getStandardFileManager(null, null, null);
      try {
        files.setLocation(StandardLocation.CLASS_PATH, List.of());
        JavacTask task =
            (JavacTask)
                javac.getTask(null, files, null, List.of("--release", "8"), null, List.of(probe));
        task.analyze();
        elements = task.getElements();
        typeUtils = task.getTypes();
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }

    boolean hasType(String internalName) {
      return type(internalName) != null;
    }

    boolean hasMember(MemberReference reference) {
      TypeElement owner = type(reference.owner);
      if (owner == null) {
        return false;
      }
      for (Element member : elements.getAllMembers(owner)) {
        if (!member.getSimpleName().contentEquals(reference.name)) {
          continue;
        }
        String descriptor =
            member instanceof ExecutableElement method
                ? descriptor(method)
                : member instanceof VariableElement field ? descriptor(field.asType()) : null;
        if (reference.descriptor.equals(descriptor)) {
          return true;
        }
      }
      return false;
    }

    /** Nested classes are named with '$' in class files and with '.' in the language. */
    private TypeElement type(String internalName) {
      String name = internalName.replace('/', '.');
      TypeElement type = elements.getTypeElement(name);
      if (type == null && name.contains("$")) {
        type = elements.getTypeElement(name.replace('$', '.'));
      }
      return type == null || !elements.getBinaryName(type).contentEquals(name) ? null : type;
    }

    private String descriptor(ExecutableElement method) {
      StringBuilder descriptor = new StringBuilder("(");
      for (VariableElement parameter : method.getParameters()) {
        descriptor.append(descriptor(parameter.asType()));
      }
      return descriptor.append(')').append(descriptor(method.getReturnType())).toString();
    }

    private String descriptor(TypeMirror type) {
      TypeMirror erased = typeUtils.erasure(type);
      return switch (erased.getKind()) {
        case BOOLEAN -> "Z";
        case BYTE -> "B";
        case CHAR -> "C";
        case SHORT -> "S";
        case INT -> "I";
        case LONG -> "J";
        case FLOAT -> "F";
        case DOUBLE -> "D";
        case VOID -> "V";
        case ARRAY -> "[" + descriptor(((ArrayType) erased).getComponentType());
        case DECLARED ->
            "L"
                + elements
                    .getBinaryName((TypeElement) ((DeclaredType) erased).asElement())
                    .toString()
                    .replace('.', '/')
                + ";";
        default -> throw new AssertionError("no descriptor for " + type);
      };
    }
  }
}
