package io.hotkey.agent.instrument.health;

/** The test library's connection: the class a permit is asked for. */
public class Connection {}
