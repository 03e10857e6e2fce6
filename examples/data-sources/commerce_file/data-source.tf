# A file by a filter, which must match exactly one file: here the first
# upload, whatever its name and type.
data "commerce_file" "first" {
  filter = "like(file_name,*-000001.*)"
}

# A file by its exact name (names are unique), here the one found above.
data "commerce_file" "by_name" {
  file_name = data.commerce_file.first.file_name
}

# The same file by id.
data "commerce_file" "by_id" {
  id = data.commerce_file.by_name.id
}

output "first_file" {
  value = "${data.commerce_file.first.file_name} (${data.commerce_file.first.mime_type}, public: ${data.commerce_file.first.public})"
}

output "first_file_link" {
  value = data.commerce_file.by_name.href
}

output "first_file_size_mib" {
  value = format("%.1f", data.commerce_file.by_id.file_size / 1048576)
}
