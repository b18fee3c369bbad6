package io.hotkey.agent.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class JsonWriterTest {

  @Test
  void writesNestedObjectsAndArraysWithCommasInPlace() {
    String json =
        new JsonWriter()
            .beginObject()
            .name("a")
            .value(1)
            .name("b")
            .beginArray()
            .value(true)
            .nullValue()
            .beginObject()
            .endObject()
            .endArray()
            .name("c")
            .beginObject()
            .name("d")
            .value("x")
            .endObject()
            .endObject()
            .toString();
    assertEquals("{\"a\":1,\"b\":[true,null,{}],\"c\":{\"d\":\"x\"}}", json);
  }

  @Test
  void keysStayInertText() {
    String json =
        new JsonWriter()
            .beginArray()
            .value("<img src=x onerror=alert(1)>")
            .value("quote\" back\\ tab\t nl\n nul\u0000 & \u2028")
            .endArray()
            .toString();
    assertEquals(
        "[\"\\u003cimg src=x onerror=alert(1)\\u003e\","
            + "\"quote\\\" back\\\\ tab\\t nl\\n nul\\u0000 \\u0026 \\u2028\"]",
        json);
  }

  @Test
  void roundsRatesAndWritesWhatIsNotANumberAsNull() {
    String json =
        new JsonWriter()
            .beginArray()
            .value(1234.56789)
            .value(0.99951)
            .value(Double.NaN)
            .value(Double.POSITIVE_INFINITY)
            .endArray()
            .toString();
    assertEquals("[1234.568,1.0,null,null]", json);
  }
}
