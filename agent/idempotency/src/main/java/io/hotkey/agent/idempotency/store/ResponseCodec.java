package io.hotkey.agent.idempotency.store;

import io.hotkey.agent.idempotency.HttpAnswer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Compact length-prefixed binary form of a stored response: {@code version(1) status(u16)
 * headerCount(u16) [nameLen(u16) name valueLen(i32) value]* bodyLen(i32) body}, strings in UTF-8.
 */
public final class ResponseCodec {
  private static final int VERSION = 1;

  private ResponseCodec() {}

  public static byte[] encode(HttpAnswer answer) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + answer.bodyLength());
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeByte(VERSION);
      out.writeShort(answer.status());
      out.writeShort(answer.headers().size());
      for (Map.Entry<String, String> header : answer.headers()) {
        byte[] name = header.getKey().getBytes(StandardCharsets.UTF_8);
        byte[] value = header.getValue().getBytes(StandardCharsets.UTF_8);
        out.writeShort(name.length);
        out.write(name);
        out.writeInt(value.length);
        out.write(value);
      }
      byte[] body = answer.body();
      out.writeInt(body.length);
      out.write(body);
      out.flush();
      return bytes.toByteArray();
    } catch (IOException impossible) {
      throw new IllegalStateException(impossible);
    }
  }

  /**
   * Reads back a response written by {@code encode}.
   *
   * @throws IllegalArgumentException when the bytes are not a response this codec wrote
   */
  public static HttpAnswer decode(byte[] data) {
    try {
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
      int version = in.readUnsignedByte();
      if (version != VERSION) {
        throw new IllegalArgumentException("unknown stored response version " + version);
      }
      int status = in.readUnsignedShort();
      int count = in.readUnsignedShort();
      List<Map.Entry<String, String>> headers = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        String name =
            new String(readBytes(in, in.readUnsignedShort(), data.length), StandardCharsets.UTF_8);
        String value = new String(readBytes(in, in.readInt(), data.length), StandardCharsets.UTF_8);
        headers.add(Map.entry(name, value));
      }
      byte[] body = readBytes(in, in.readInt(), data.length);
      if (in.available() != 0) {
        throw new IllegalArgumentException("trailing bytes after a stored response");
      }
      return new HttpAnswer(status, headers, body);
    } catch (IOException e) {
      throw new IllegalArgumentException("truncated stored response", e);
    }
  }

  private static byte[] readBytes(DataInputStream in, int length, int limit) throws IOException {
    if (length < 0 || length > limit) {
      throw new IllegalArgumentException("corrupt length " + length + " in a stored response");
    }
    byte[] bytes = new byte[length];
    in.readFully(bytes);
    return bytes;
  }
}
