package io.hotkey.agent.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PerConnectionTest {
  /**
   * A connection as the agent leaves Jedis' {@code Connection}: with a {@link
   * ConnectionStateField}.
   */
  static final class FieldConnection implements ConnectionStateField {
    private volatile Object state;

    @Override
    public Object hotkey$connectionState() {
      return state;
    }

    @Override
    public void hotkey$connectionState(Object state) {
      this.state = state;
    }
  }

  private final AtomicInteger created = new AtomicInteger();
  private final PerConnection<String> states =
      new PerConnection<>(c -> "state " + created.incrementAndGet());

  @Test
  void aConnectionWithTheFieldHoldsItsOwnStateFromItsFirstCommandOn() {
    FieldConnection connection = new FieldConnection();
    assertNull(states.getIfPresent(connection), "a state before the first command");
    assertNull(states.held(connection));

    String state = states.get(connection);

    assertSame(state, connection.hotkey$connectionState(), "not kept in the connection's field");
    assertSame(state, states.held(connection));
    assertSame(state, states.get(connection));
    assertSame(state, states.getIfPresent(connection));
    assertEquals(1, created.get());
  }

  @Test
  void aConnectionWithoutTheFieldIsFoundByIdentity() {
    Object connection = new Object();
    assertNull(states.getIfPresent(connection));

    String state = states.get(connection);

    assertNull(states.held(connection), "a plain object has no field to hold it");
    assertSame(state, states.get(connection));
    assertSame(state, states.getIfPresent(connection));
    assertNull(states.getIfPresent(new Object()), "another connection shares its state");
    assertEquals(1, created.get());
  }

  @Test
  void threadsThatSeeANewConnectionAtOnceAllGetTheOneStateItKeeps() throws Exception {
    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      for (int round = 0; round < 200; round++) {
        FieldConnection connection = new FieldConnection();
        CountDownLatch go = new CountDownLatch(1);
        List<Future<String>> seen = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          seen.add(
              pool.submit(
                  () -> {
                    go.await();
                    return states.get(connection);
                  }));
        }
        go.countDown();
        List<String> got = new ArrayList<>();
        for (Future<String> s : seen) {
          got.add(s.get());
        }
        for (String state : got) {
          assertSame(connection.hotkey$connectionState(), state, "round " + round);
        }
      }
      assertEquals(200, created.get(), "a connection's state created more than once");
    } finally {
      pool.shutdownNow();
    }
  }
}
