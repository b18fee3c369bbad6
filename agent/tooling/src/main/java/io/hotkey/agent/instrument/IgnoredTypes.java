package io.hotkey.agent.instrument;

/**
 * The classes no module ever transforms, told by their internal name alone: the agent's own, the
 * JDK's (but for its HTTP server, {@code sun.net.httpserver}), and Byte Buddy's, which the filter
 * itself loads on its first use and so must never need while one of them is being defined. Asked
 * first, for every class that is not named by a module, before any class-loader or type matcher.
 */
final class IgnoredTypes {
  private IgnoredTypes() {}

  static boolean ignores(String internalName) {
    return internalName.startsWith("io/hotkey/")
        || internalName.startsWith("java/")
        || internalName.startsWith("jdk/")
        || internalName.startsWith("net/bytebuddy/")
        || (internalName.startsWith("sun/") && !internalName.startsWith("sun/net/httpserver/"));
  }
}
