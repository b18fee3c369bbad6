package io.hotkey.demo.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Measuring in alternating rounds: every configuration's measured time is cut into rounds, and the order of
 * the configurations flips from round to round, so that a drift of the machine falls on all of them alike
 * rather than on the one measured last.
 */
final class Rounds {

    private Rounds() {
    }

    /** The order of {@code setups} in round {@code round} (from 0): as given, then reversed, and so on. */
    static <T> List<T> order(List<T> setups, int round) {
        List<T> order = new ArrayList<>(setups);
        if (round % 2 == 1) {
            Collections.reverse(order);
        }
        return order;
    }
}
