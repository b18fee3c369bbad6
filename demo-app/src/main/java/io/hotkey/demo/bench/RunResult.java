package io.hotkey.demo.bench;

import java.util.Map;

/**
 * What one measured round of a child did, as the line it prints for the parent:
 * {@code RESULT ops=… gets=… sets=… errors=… seconds=…}.
 */
public record RunResult(long ops, long gets, long sets, long errors, double seconds) {

    static final String PREFIX = "RESULT ";

    public double opsPerSecond() {
        return ops / seconds;
    }

    /** This result and {@code other} together, as one run of both their operations and seconds. */
    public RunResult plus(RunResult other) {
        return new RunResult(ops + other.ops, gets + other.gets, sets + other.sets, errors + other.errors,
                seconds + other.seconds);
    }

    public String toLine() {
        return PREFIX + "ops=" + ops + " gets=" + gets + " sets=" + sets + " errors=" + errors
                + " seconds=" + seconds;
    }

    public static boolean isResultLine(String line) {
        return line.startsWith(PREFIX);
    }

    public static RunResult parse(String line) {
        Map<String, String> fields = KeyValues.parse(line.substring(PREFIX.length()));
        try {
            return new RunResult(Long.parseLong(fields.get("ops")), Long.parseLong(fields.get("gets")),
                    Long.parseLong(fields.get("sets")), Long.parseLong(fields.get("errors")),
                    Double.parseDouble(fields.get("seconds")));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("malformed result line: " + line, e);
        }
    }
}
