package io.hotkey.it;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A test class that runs on the second thread beside the other classes, which run one after another
 * on the first: for classes that leave a core idle most of the time (failovers, TTLs, leases,
 * windows, one application JVM at a time) and start every server they use, and whose checks have no
 * tight real-time bound. The shared lock keeps the side lane to one class at a time, and makes each
 * such class run its tests one after another.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("side lane")
@interface SideLane {}
