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
		{"public", "Whether the file can be fetched without credentials.", types.BoolType},
		{"href", "Address the file is served from.", types.StringType},
	},
	row: func(f client.File) []any {
		return []any{f.FileName, f.MimeType, f.FileSize, f.Public, f.Href}
	},
	lookupKeys: []string{"file_name"},
	example:    "eq(mime_type,image/png):eq(public,true)",
}

// NewFilesDataSource is commerce_files.
func NewFilesDataSource() datasource.DataSource {
	return &listDataSource[client.File]{rt: fileType}
}
