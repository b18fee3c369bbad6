package io.hotkey.agent.instrument.lettuce.v6_0;

import io.hotkey.agent.core.RedisHooks;
import io.hotkey.agent.redis.resp.RedisEndpoint;
import io.lettuce.core.ConnectionState;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisCredentialsProvider;
import io.lettuce.core.SslOptions;
import io.netty.channel.Channel;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.util.AttributeKey;
import java.lang.reflect.Method;
import java.net.PasswordAuthentication;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocketFactory;

/**
 * How a Lettuce channel reaches and logs in to its server, told to the agent so that its own
 * tracking connection to that server does the same: Lettuce's handshake ({@code HELLO}/{@code AUTH}
 * from its {@code ConnectionState}) and its TLS ({@code SslOptions}, {@code RedisURI}'s verify
 * mode) never pass a hook that sees commands. A helper class, defined next to Lettuce ({@link
 * Lettuce6InstrumentationModule}).
 *
 * <p>Nothing here is resolved on Lettuce's threads: the credentials (a {@code
 * RedisCredentialsProvider} may fetch them) and the TLS sockets (Lettuce's {@code SslOptions} may
 * read key stores) are made when the agent's connection opens, on the agent's tracking thread.
 */
public final class LettuceLogins {
  /** How long the agent's thread waits for a credentials provider that answers asynchronously. */
  private static final long CREDENTIALS_TIMEOUT_SECONDS = 10;

  /** The server a channel is connected to, as {@link RedisHooks#channelServer} described it. */
  private static final AttributeKey<RedisEndpoint> SERVER =
      AttributeKey.valueOf("io.hotkey.agent.server");

  /** What makes TLS sockets that trust (and present) what the channel's own TLS does. */
  private static final AttributeKey<Callable<SSLSocketFactory>> TLS_SOCKETS =
      AttributeKey.valueOf("io.hotkey.agent.tls-sockets");

  private LettuceLogins() {}

  /**
   * {@code SslChannelInitializer.initChannel}: the channel's TLS is Lettuce's {@code SslOptions}
   * with the URI's verify mode ({@code SslVerifyMode}, a boolean before Lettuce 6.1).
   */
  public static void tlsChannel(Channel channel, SslOptions options, Object verifyPeer) {
    boolean trustAll =
        Boolean.FALSE.equals(verifyPeer) || "NONE".equals(String.valueOf(verifyPeer));
    channel.attr(TLS_SOCKETS).set(() -> tlsSockets(options, trustAll));
  }

  /**
   * {@code RedisHandshake.initialize}: the channel is connected and about to log in with what
   * {@code state} holds; records the server as the agent's connection will reach it.
   */
  public static void handshake(Channel channel, ConnectionState state) {
    Callable<PasswordAuthentication> credentials = () -> credentials(state);
    SslHandler tls = channel.pipeline().get(SslHandler.class);
    RedisEndpoint server;
    if (tls == null) {
      server = RedisHooks.channelServer(channel.remoteAddress(), credentials);
    } else {
      // Lettuce set the peer's name and the host-name check (verify mode FULL) on the engine
      SSLEngine engine = tls.engine();
      server =
          RedisHooks.channelTlsServer(
              channel.remoteAddress(),
              engine.getPeerHost(),
              "HTTPS"
                  .equalsIgnoreCase(engine.getSSLParameters().getEndpointIdentificationAlgorithm()),
              channel.attr(TLS_SOCKETS).get(),
              credentials);
    }
    channel.attr(SERVER).set(server);
  }

  /**
   * Where a command written to {@code channel} goes, for {@link RedisHooks#writtenTo}: the server
   * as its handshake described it, or (a channel connected before the agent attached) its remote
   * address.
   */
  public static Object server(Channel channel) {
    if (channel == null) {
      return null;
    }
    RedisEndpoint described = channel.attr(SERVER).get();
    return described != null ? described : channel.remoteAddress();
  }

  /**
   * The login Lettuce's handshake would send now, resolved as it resolves it; null: none. The
   * password stays in the returned object, which the agent's connection only sends.
   */
  private static PasswordAuthentication credentials(ConnectionState state) throws Exception {
    RedisCredentialsProvider provider;
    try {
      provider = state.getCredentialsProvider();
    } catch (NoSuchMethodError beforeLettuce62) {
      return credentialsBeforeLettuce62(state);
    }
    if (provider == null) {
      return null;
    }
    RedisCredentials credentials =
        provider instanceof RedisCredentialsProvider.ImmediateRedisCredentialsProvider
            ? ((RedisCredentialsProvider.ImmediateRedisCredentialsProvider) provider)
                .resolveCredentialsNow()
            : provider
                .resolveCredentials()
                .toFuture()
                .get(CREDENTIALS_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    if (credentials == null || !credentials.hasPassword()) {
      return null;
    }
    return new PasswordAuthentication(
        credentials.hasUsername() ? credentials.getUsername() : null, credentials.getPassword());
  }

  /** Lettuce 6.0 and 6.1 keep the user and password in {@code ConnectionState} itself. */
  private static PasswordAuthentication credentialsBeforeLettuce62(ConnectionState state)
      throws ReflectiveOperationException {
    Method username = ConnectionState.class.getDeclaredMethod("getUsername");
    Method password = ConnectionState.class.getDeclaredMethod("getPassword");
    username.setAccessible(true);
    password.setAccessible(true);
    char[] secret = (char[]) password.invoke(state);
    if (secret == null || secret.length == 0) {
      return null;
    }
    String user = (String) username.invoke(state);
    return new PasswordAuthentication(user == null || user.isEmpty() ? null : user, secret);
  }

  /**
   * The sockets of the context Lettuce builds from {@code options} for each channel (trust, key
   * material for client certificates), made by the JDK's provider so that they are sockets the
   * agent can use.
   */
  private static SSLSocketFactory tlsSockets(SslOptions options, boolean trustAll)
      throws Exception {
    SslContextBuilder builder = options.createSslContextBuilder();
    if (trustAll) {
      builder.trustManager(InsecureTrustManagerFactory.INSTANCE);
    }
    SslContext context = builder.sslProvider(SslProvider.JDK).build();
    return ((JdkSslContext) context).context().getSocketFactory();
  }
}
