-- Frontend tokens: for browser and mobile apps (the frontend API and OFREP), one environment
-- and a list of projects, like client tokens.
ALTER TABLE api_tokens DROP CONSTRAINT api_tokens_type_check;
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_type_check CHECK (type IN ('admin', 'client', 'frontend'));
