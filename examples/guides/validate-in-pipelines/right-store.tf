# The store this configuration plans against: the pipeline sets
# TF_VAR_store_id (production's id in the production pipeline), and any
# other store stops the plan before anything reads its data.
variable "store_id" {
  type        = string
  description = "Id of the store the credentials must reach, as commerce_store reads it."
}

data "commerce_store" "this" {
  lifecycle {
    postcondition {
      condition     = self.id == var.store_id
      error_message = "These credentials reach store ${self.id} (${coalesce(self.name, "name not known")}), not ${var.store_id}: check base_url and client_id."
    }
  }
}
