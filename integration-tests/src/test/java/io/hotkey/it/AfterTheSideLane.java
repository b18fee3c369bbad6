package io.hotkey.it;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Order;

/**
 * A test class whose tests run two at a time ({@code @Execution(CONCURRENT)} methods): it runs
 * after the other classes of the first thread, as the second thread only takes its second test once
 * the {@link SideLane} classes, which it runs first, are done.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Order(Order.DEFAULT + 1)
@interface AfterTheSideLane {}
