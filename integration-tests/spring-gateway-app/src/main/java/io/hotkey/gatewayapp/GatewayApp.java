package io.hotkey.gatewayapp;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring Cloud Gateway with nothing of its own: its routes come from the properties the test
 * starts it with ({@code spring.cloud.gateway.server.webflux.routes[n]}).
 */
@SpringBootApplication
public class GatewayApp {
  public static void main(String[] args) {
    SpringApplication.run(GatewayApp.class, args);
  }
}
