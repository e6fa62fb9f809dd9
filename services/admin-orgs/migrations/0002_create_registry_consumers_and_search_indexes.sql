-- Registry sharing: which organizations may consume a producer's private modules / providers.
-- Rows exist only while the producer's matching global sharing is off (enabling it clears them).
CREATE TABLE registry_consumers (
  producer text NOT NULL REFERENCES organizations (name) ON DELETE CASCADE ON UPDATE CASCADE,
  registry text NOT NULL CHECK (registry IN ('modules', 'providers')),
  consumer text NOT NULL REFERENCES organizations (name) ON DELETE CASCADE ON UPDATE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (producer, registry, consumer)
);
-- Deleting or renaming a consumer organization cascades through this index.
CREATE INDEX registry_consumers_consumer ON registry_consumers (consumer);

-- Admin search: case-insensitive substring (ILIKE '%…%') on name and notification email.
CREATE INDEX organizations_name_trgm ON organizations USING gin (name public.gin_trgm_ops);
CREATE INDEX organizations_email_trgm ON organizations USING gin (email public.gin_trgm_ops);
-- Default list order of the admin API.
CREATE INDEX organizations_created_at ON organizations (created_at, name);
