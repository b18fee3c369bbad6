package io.hotkey.demo.flashsale;

/** What {@link FlashSale#placeOrder} did. */
public sealed interface PlaceOrderResult {

  /** Stock was taken and the order recorded, in one atomic step. */
  record Created(Order order) implements PlaceOrderResult {}

  /** Not enough stock left for the quantity asked; nothing was changed. */
  record SoldOut(long productId, long stockLeft) implements PlaceOrderResult {}

  /** The product is not part of the flash sale (it has no {@code stock:<id>} key). */
  record NotOnSale(long productId) implements PlaceOrderResult {}
}
