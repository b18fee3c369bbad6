package io.hotkey.gatewayapp;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring Cloud Gateway whose routes come from the properties the test starts it with ({@code
 * spring.cloud.gateway.server.webflux.routes[n]}), and whose only code of its own is the
 * authentication its callers' principals come from ({@link HeaderAuthentication}).
 */
@SpringBootApplication
public class GatewayApp {
  public static void main(String[] args) {
    SpringApplication.run(GatewayApp.class, args);
  }
}
