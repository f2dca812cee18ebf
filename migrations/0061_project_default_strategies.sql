-- The strategy a feature of the project gets when it is switched on in the environment with no
-- active strategy (Unleash's "default strategy" of a project's environment): JSON text of the
-- strategy {name, title, disabled, sortOrder, parameters, constraints, variants, segments},
-- as written; NULL: Unleash's own default (flexibleRollout at 100 %).
ALTER TABLE project_environments ADD COLUMN default_strategy JSON;
