package io.hotkey.agent.cache;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;

/**
 * Reads of a multiplexed client (Lettuce) that wait for a reply already on its way from Redis
 * instead of sending their own request, without blocking a thread: each read is parked as the
 * client's own (connection, command) pair, opaque here, and handed back to the adapter when its
 * answer is known, with the answer to replay into it, or with {@link #NO_ANSWER} (then it goes to
 * Redis, as it would have without the agent). Each read carries the counters of its hot keys, which
 * count it a hit or a miss only once its answer is known.
 *
 * <p>Whoever parks a read must have proved that the answer it will get is one Redis could give that
 * read (see the callers); this class only keeps the queue and makes sure that a read is either
 * parked before the queue is settled, and then handed back exactly once, or refused. Reads carry a
 * mark, non-decreasing in parking order, so that a caller can hand back the oldest ones first.
 */
public final class ParkedReads {
  /** Handed back instead of an answer: the parked reads must go to Redis. */
  public static final Object NO_ANSWER = new Object();

  /**
   * Reads waiting in one queue at most; beyond, they go to Redis rather than queue behind one slow
   * reply.
   */
  static final int MAX_PARKED = 4096;

  private Object[] parked; // connection, command, ...
  private HotKeyReads[][] hotKeys;
  private int[] marks;
  private int head;
  private int size;
  private boolean settled;

  /** Parks a read; false once the queue is settled or full (then the read goes to Redis). */
  public boolean park(Object connection, Object command, HotKeyReads[] keys) {
    return park(connection, command, keys, 0);
  }

  /** Parks a read with a mark no lower than any parked before it. */
  public synchronized boolean park(
      Object connection, Object command, HotKeyReads[] keys, int mark) {
    if (settled || size - head >= MAX_PARKED) {
      return false;
    }
    if (parked == null) {
      parked = new Object[16];
      hotKeys = new HotKeyReads[8][];
      marks = new int[8];
    } else if (size == marks.length) {
      if (head > 0) {
        // the handed-back front is free: slide the waiting reads down instead of growing
        System.arraycopy(parked, 2 * head, parked, 0, 2 * (size - head));
        System.arraycopy(hotKeys, head, hotKeys, 0, size - head);
        System.arraycopy(marks, head, marks, 0, size - head);
        Arrays.fill(parked, 2 * (size - head), 2 * size, null);
        Arrays.fill(hotKeys, size - head, size, null);
        size -= head;
        head = 0;
      }
      if (size == marks.length) {
        parked = Arrays.copyOf(parked, size * 4);
        hotKeys = Arrays.copyOf(hotKeys, size * 2);
        marks = Arrays.copyOf(marks, size * 2);
      }
    }
    parked[2 * size] = connection;
    parked[2 * size + 1] = command;
    hotKeys[size] = keys;
    marks[size++] = mark;
    return true;
  }

  /**
   * Ends parking and hands back every read with {@code answer}, in parking order; empty when none
   * is parked, and for every later call.
   *
   * @param answer what to replay into the reads, or {@link #NO_ANSWER}
   */
  public synchronized List<Resumption> settle(Object answer) {
    if (settled) {
      return List.of();
    }
    settled = true;
    return handBack(Integer.MAX_VALUE, mark -> answer);
  }

  /**
   * Hands back, in parking order, the parked reads marked at most {@code mark}, each with its
   * answer.
   */
  public synchronized List<Resumption> handBack(int mark, IntFunction<Object> answers) {
    int end = head;
    while (end < size && marks[end] <= mark) {
      end++;
    }
    if (end == head) {
      return List.of();
    }
    List<Resumption> resumed = new ArrayList<>(end - head);
    for (int i = head; i < end; i++) {
      resumed.add(
          new Resumption(answers.apply(marks[i]), parked[2 * i], parked[2 * i + 1], hotKeys[i]));
      parked[2 * i] = null;
      parked[2 * i + 1] = null;
      hotKeys[i] = null;
    }
    head = end;
    return resumed;
  }
}
