package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/commerce-tf/terraform-provider-commerce/internal/client"
)

var accountType = recordType[client.Account]{
	kind: client.Accounts,
	fields: []field{
		updatedAtField,
		{"name", "Name of the account.", types.StringType},
		{"legal_name", "Legal name of the organisation behind the account.", types.StringType},
		{"registration_id", "Company registration identifier.", types.StringType},
		{"external_ref", "Reference of the account in another system.", types.StringType},
		{"parent_id", "Id of the parent account; null for a top-level account.", types.StringType},
	},
	row: func(a client.Account) []any {
		return []any{a.UpdatedAt, a.Name, a.LegalName, a.RegistrationID, a.ExternalRef, a.ParentID}
	},
	lookupKeys: []string{"name", "legal_name", "registration_id"},
	example:    `eq(name,"Acme, Inc."):ge(created_at,2026-01-01T00:00:00.000Z)`,
}

// NewAccountsDataSource is commerce_accounts.
func NewAccountsDataSource() datasource.DataSource {
	return &listDataSource[client.Account]{rt: accountType}
}
