package io.hotkey.agent.core;

/**
 * Whether the connections of one client module in one class loader may answer reads locally: only
 * once every hook the module needs there is woven, and never again after one of them failed (a
 * module missing the hook that invalidates after a write would serve stale values). Read on every
 * read of a hot key, so it is one volatile field.
 */
public final class ServingPermit {
  /** For connections no module gate applies to. */
  public static final ServingPermit ALWAYS = new ServingPermit(true);

  private volatile boolean granted;

  public ServingPermit(boolean granted) {
    this.granted = granted;
  }

  public boolean granted() {
    return granted;
  }

  public void set(boolean granted) {
    this.granted = granted;
  }
}
