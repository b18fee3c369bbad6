package io.hotkey.agent.redis.resp;

import io.hotkey.agent.core.Sha256;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** A Lua script with its SHA-1, sent by EVALSHA first (see {@link RespClient#eval}). */
public final class LuaScript {
  private final byte[] source;
  private final byte[] sha;

  public LuaScript(String source) {
    this.source = RespConnection.bytes(source);
    try {
      this.sha =
          RespConnection.bytes(Sha256.hex(MessageDigest.getInstance("SHA-1").digest(this.source)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** {@code EVALSHA} (by its SHA-1) or {@code EVAL} (its source) of this script. */
  public byte[][] command(boolean bySha, byte[][] keys, byte[][] args) {
    byte[][] command = new byte[3 + keys.length + args.length][];
    command[0] = RespConnection.bytes(bySha ? "EVALSHA" : "EVAL");
    command[1] = bySha ? sha : source;
    command[2] = RespConnection.bytes(Integer.toString(keys.length));
    System.arraycopy(keys, 0, command, 3, keys.length);
    System.arraycopy(args, 0, command, 3 + keys.length, args.length);
    return command;
  }
}
