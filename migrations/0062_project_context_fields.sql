-- Context fields of one project (Unleash 7.4+): a field with a project is listed with that
-- project's fields; NULL is a root field, listed for every project. Names stay unique across
-- both (the primary key).
ALTER TABLE context_fields ADD COLUMN project TEXT REFERENCES projects (id) ON DELETE CASCADE;
CREATE INDEX context_fields_project_idx ON context_fields (project) WHERE project IS NOT NULL;
