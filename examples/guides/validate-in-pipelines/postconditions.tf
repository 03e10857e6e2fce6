# A postcondition stops the plan when what the configuration relies on is
# not so: here, that the store has complete orders at all.
data "commerce_orders" "complete" {
  filter          = "eq(status,complete)"
  include_records = false

  lifecycle {
    postcondition {
      condition     = self.total > 0
      error_message = "The store has no complete orders: is base_url the right store?"
    }
  }
}

# A check block warns and lets the plan go on: here, about orders left
# unpaid since before 2024.
check "no_stale_unpaid_orders" {
  data "commerce_orders" "stale" {
    filter          = "eq(payment,unpaid):lt(created_at,2024-01-01)"
    include_records = false
  }

  assert {
    condition     = data.commerce_orders.stale.total == 0
    error_message = "${data.commerce_orders.stale.total} orders created before 2024 are still unpaid."
  }
}
