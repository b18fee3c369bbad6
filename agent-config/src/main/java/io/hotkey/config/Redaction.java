package io.hotkey.config;

/** How Redis keys appear in the agent's logs, metrics, JMX, endpoint and {@code status}. */
public enum Redaction {
  /** As they are (non-printable bytes escaped). */
  NONE,
  /** A stable short hash of the key, after its first {@code hotkey.report.redact-prefix} bytes. */
  HASH
}
