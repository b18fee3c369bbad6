package io.hotkey.agent.instrument.startahead;

/** A class of the test module's library that no instrumentation names. */
public final class LibraryType {
  private LibraryType() {}
}
