data "commerce_accounts" "named" {
  where = [
    { attribute = "name", op = "like", value = "O'Brien & *" },
  ]
}

data "commerce_accounts" "by_id" {
  where = [
    { attribute = "id", op = "in", values = ["0b7e3c1a-6f1d-4c8e-9a52-1f0c2d3e4a5b", "5c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f"] },
  ]
}

data "commerce_orders" "recent_complete" {
  filter = "eq(status,complete):ge(created_at,2024-01-01T00:00:00.000Z)"
}

data "commerce_account" "acme" {
  filter = "eq(name,'Acme, Inc.')"
}
