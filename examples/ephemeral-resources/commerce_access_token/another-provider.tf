# Another provider configured with the same token: here the community
# Mastercard/restapi provider, for endpoints this provider does not model.
# Provider blocks take ephemeral values, so the token reaches the other
# provider without being written anywhere.
terraform {
  required_providers {
    restapi = {
      source = "Mastercard/restapi"
    }
  }
}

ephemeral "commerce_access_token" "api" {}

variable "commerce_base_url" {
  description = "The store's API address, as in the commerce provider's base_url."
  type        = string
}

provider "restapi" {
  uri                  = var.commerce_base_url
  write_returns_object = true
  headers = {
    Authorization = "Bearer ${ephemeral.commerce_access_token.api.access_token}"
  }
}
