# Images at least 1024 pixels wide and over 1 MiB, largest first. The
# service cannot sort files: the provider lists every match and sorts them.
data "commerce_files" "large_images" {
  filter = "ge(width,1024):gt(file_size,1048576)"
  sort   = "-file_size"
}

# Every export file, whatever its type.
data "commerce_files" "exports" {
  where = [
    { attribute = "file_name", op = "like", value = "export-*" },
  ]
}

# Read each of the first five exports on its own, by id.
data "commerce_file" "export" {
  for_each = { for id in slice(data.commerce_files.exports.ids, 0, min(5, length(data.commerce_files.exports.ids))) : id => id }
  id       = each.value
}

output "large_image_links" {
  value = { for f in data.commerce_files.large_images.files : f.file_name => f.href }
}

output "export_bytes" {
  value = sum(concat([0], data.commerce_files.exports.files[*].file_size))
}

output "first_export_types" {
  value = { for id, f in data.commerce_file.export : f.file_name => f.mime_type }
}
