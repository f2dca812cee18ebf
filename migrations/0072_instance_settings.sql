-- Settings of the instance by name, as Unleash keeps them: 'maintenance.mode' ({enabled}),
-- 'unleash.frontend' ({frontendApiOrigins}), and 'instance.id' (made here, once: the id
-- ui-config and the statistics answer).
CREATE TABLE instance_settings (
  name       TEXT PRIMARY KEY,
  value      JSONB NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
INSERT INTO instance_settings (name, value) VALUES ('instance.id', to_jsonb(gen_random_uuid()::text));
