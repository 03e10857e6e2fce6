# Runs without a store or credentials: every data source of the provider
# answers with the values below (Terraform 1.7+, OpenTofu 1.8+).
mock_provider "commerce" {
  mock_data "commerce_account" {
    defaults = {
      id = "0b7e3c1a-6f1d-4c8e-9a52-1f0c2d3e4a5b"
    }
  }

  mock_data "commerce_orders" {
    defaults = {
      ids = ["5c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f"]
    }
  }
}

run "passes_the_account_id_on" {
  command = plan

  variables {
    account_name = "Acme, Inc."
  }

  assert {
    condition     = output.account_id == "0b7e3c1a-6f1d-4c8e-9a52-1f0c2d3e4a5b"
    error_message = "The module's account_id is not the account it looked up."
  }

  assert {
    condition     = length(output.open_order_ids) == 1
    error_message = "The module's open_order_ids are not the orders it listed."
  }
}
