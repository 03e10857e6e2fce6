# The provider's own access token, for a script that calls an endpoint
# this provider does not model. It is never written to the plan or the
# state, and opening it costs no request while the provider's cached token
# has the lifetime asked for.
ephemeral "commerce_access_token" "api" {
  min_lifetime = "15m"
}

# Export one page of customers with curl. The token travels in an
# environment variable and curl reads the header from stdin, so it appears
# in no command line, no log and no state. COMMERCE_BASE_URL is the same
# variable the provider reads.
resource "terraform_data" "customer_export" {
  provisioner "local-exec" {
    command = <<-EOT
      printf 'Authorization: Bearer %s\n' "$COMMERCE_TOKEN" |
        curl --fail --silent --show-error --header @- --output customers.json \
          "$COMMERCE_BASE_URL/v2/customers?page%5Blimit%5D=100"
    EOT
    environment = {
      COMMERCE_TOKEN = ephemeral.commerce_access_token.api.access_token
    }
  }
}
