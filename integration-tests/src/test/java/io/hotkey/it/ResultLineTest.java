package io.hotkey.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hotkey.it.app.Child;
import io.hotkey.it.app.results.ResultFamily;
import io.hotkey.it.app.results.ResultName;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A value a scenario app reports is the value its test reads, whatever text it holds. */
class ResultLineTest {
  private static final ResultName<Long> COUNT = ResultName.number("x.count");
  private static final ResultName<Boolean> FLAG = ResultName.flag("x.flag");
  private static final ResultName<String> TEXT = ResultName.text("x.text");
  private static final ResultName<String> REPLY = ResultName.reply("x.reply");
  private static final ResultName<List<String>> TEXTS = ResultName.texts("x.texts");

  private static ChildRun childThatPrinted(List<String> stdout) {
    return new ChildRun(
        "child",
        "java Child",
        0,
        false,
        Duration.ZERO,
        stdout,
        List.of(),
        List.of(),
        Path.of("child.stdout"),
        Path.of("child.stderr"),
        null);
  }

  private static <T> T roundTrip(ResultName<T> name, T value) {
    return childThatPrinted(List.of(Child.resultLine(name, value))).result(name);
  }

  @Test
  void everyKindOfValueReadsBackAsWritten() {
    assertEquals(-42L, roundTrip(COUNT, -42L));
    assertEquals(true, roundTrip(FLAG, true));
    assertEquals(false, roundTrip(FLAG, false));
    assertEquals("a=b \\ c\nd\re", roundTrip(TEXT, "a=b \\ c\nd\re"));
    assertEquals("", roundTrip(TEXT, ""));
    assertNull(roundTrip(REPLY, null));
    assertEquals("null", roundTrip(REPLY, "null"));
    for (List<String> texts :
        List.of(
            List.<String>of(),
            List.of(""),
            List.of("", ""),
            List.of("a, b", "[c]", "\"quoted\"", "back\\slash\\", "two\nlines", "\\\""))) {
      assertEquals(texts, roundTrip(TEXTS, texts));
    }
  }

  @Test
  void aResultNotReportedFailsNamingItAndTheChildsLog() {
    AssertionError e =
        assertThrows(AssertionError.class, () -> childThatPrinted(List.of()).result(COUNT));
    assertTrue(e.getMessage().contains("x.count"), e.getMessage());
    assertTrue(e.getMessage().contains("child.stderr"), e.getMessage());
  }

  @Test
  void aValueOfAnotherTypeOrNoValueWhereOneIsDueFails() {
    ChildRun c =
        childThatPrinted(List.of("RESULT x.count=ERROR gone", "RESULT x.flag", "RESULT x.text"));
    AssertionError notANumber = assertThrows(AssertionError.class, () -> c.result(COUNT));
    assertTrue(notANumber.getMessage().contains("x.count=ERROR gone"), notANumber.getMessage());
    assertThrows(AssertionError.class, () -> c.result(FLAG));
    assertThrows(AssertionError.class, () -> c.result(TEXT));
    assertThrows(
        AssertionError.class, () -> childThatPrinted(List.of("RESULT x.flag=yes")).result(FLAG));
    assertThrows(
        AssertionError.class, () -> childThatPrinted(List.of("RESULT x.texts=a, b")).result(TEXTS));
  }

  @Test
  void aFamilyReadsEveryMemberReportedAndNoOtherResult() {
    ResultFamily<String> outcome = new ResultFamily<>("case.", "", ResultName::text);
    ResultFamily<Boolean> served = new ResultFamily<>("case.", ".served", ResultName::flag);
    ChildRun c =
        childThatPrinted(
            List.of(
                Child.resultLine(outcome.of("b"), "ok"),
                Child.resultLine(served.of("b"), true),
                Child.resultLine(outcome.of("a"), "read x"),
                Child.resultLine(TEXT, "not a case"),
                "RESULT case.a.warmup.rounds=3"));
    assertEquals(Map.of("a", "read x", "b", "ok"), c.results(outcome));
    assertEquals(List.of("a", "b"), List.copyOf(c.results(outcome).keySet()));
    assertEquals(Map.of("b", true), c.results(served));
    assertThrows(IllegalArgumentException.class, () -> outcome.of("a.b"));
  }
}
