package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
)

var fileType = recordType[client.File]{
	kind: client.Files,
	fields: []field{
		{"file_name", "Name of the file.", types.StringType},
		{"mime_type", "Media type, e.g. `image/png`.", types.StringType},
		{"file_size", "Size in bytes.", types.Int64Type},
		{"width", "Width in pixels, for images; null otherwise (`meta.dimensions.width`).", types.Int64Type},
		{"height", "Height in pixels, for images; null otherwise (`meta.dimensions.height`).", types.Int64Type},
		{"public", "Whether the file can be fetched without credentials (deprecated by the service).", types.BoolType},
		{"href", "Address the file is served from (`link.href`).", types.StringType},
	},
	row: func(f client.File) []any {
		return []any{f.FileName, f.MimeType, f.FileSize, f.Width, f.Height, f.Public, f.Href}
	},
	lookupKeys: []string{"file_name"},
	example:    "like(file_name,invoice-*):ge(file_size,1048576)",
}

// NewFilesDataSource is commerce_files.
func NewFilesDataSource() datasource.DataSource {
	return &listDataSource[client.File]{rt: fileType}
}
