# Every configuration that uses the provider says where it comes from, and
# configures it: here from the COMMERCE_* environment variables (the
# emulator prints them). Paste this block first; the examples below go in
# the same folder.
terraform {
  required_providers {
    commerce = {
      source = "commerce-tf/commerce"
    }
  }
}

provider "commerce" {}
