# Public PNG images over 1 MiB, most recently updated first.
data "commerce_files" "large_public_png" {
  filter = "eq(mime_type,image/png):eq(public,true):gt(file_size,1048576)"
  sort   = "-updated_at"
}

# Every export file, whatever its type.
data "commerce_files" "exports" {
  where = [
    { attribute = "file_name", op = "like", value = "export-*" },
  ]
}

# Read each of the first five exports on its own, by id.
data "commerce_file" "export" {
  for_each = toset(slice(data.commerce_files.exports.ids, 0, min(5, length(data.commerce_files.exports.ids))))
  id       = each.value
}

output "large_public_png_links" {
  value = { for f in data.commerce_files.large_public_png.files : f.file_name => f.href }
}

output "export_bytes" {
  value = sum(concat([0], data.commerce_files.exports.files[*].file_size))
}

output "first_export_types" {
  value = { for id, f in data.commerce_file.export : f.file_name => f.mime_type }
}
