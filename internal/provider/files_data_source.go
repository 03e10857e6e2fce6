package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
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
	values: func(f client.File) map[string]attr.Value {
		return map[string]attr.Value{
			"file_name": optString(f.FileName),
			"mime_type": optString(f.MimeType),
			"file_size": optInt64(f.FileSize),
			"public":    optBool(f.Public),
			"href":      optString(f.Href),
		}
	},
	lookupKeys: []string{"file_name"},
	example:    "eq(mime_type,image/png):eq(public,true)",
}

// NewFilesDataSource is commerce_files.
func NewFilesDataSource() datasource.DataSource {
	return &listDataSource[client.File]{rt: fileType}
}
