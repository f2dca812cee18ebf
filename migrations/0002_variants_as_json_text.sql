-- Variants become JSON text in the exact form the service writes: members in the order
-- name, weight, weightType, stickiness, payload {type, value}, overrides [{contextName, values}],
-- no whitespace, absent payload/overrides left out (what JSON.stringify makes of a normalised
-- variant). The service then compares, copies and serves the stored text as it is, and the
-- database no longer converts the document to and from its binary form on every write.
--
-- Existing rows are rewritten into that form here, so that the first write after the
-- upgrade sees "unchanged" exactly when nothing changed.

ALTER TABLE feature_environments ADD COLUMN variants_text JSON;

UPDATE feature_environments SET variants_text = (
  SELECT ('[' || coalesce(string_agg(
      '{"name":' || to_json(v ->> 'name')::text
      || ',"weight":' || (v -> 'weight')::text
      || ',"weightType":' || to_json(coalesce(v ->> 'weightType', 'variable'))::text
      || ',"stickiness":' || to_json(coalesce(v ->> 'stickiness', 'default'))::text
      || CASE WHEN v ? 'payload' THEN
           ',"payload":{"type":' || to_json(v -> 'payload' ->> 'type')::text
           || ',"value":' || to_json(v -> 'payload' ->> 'value')::text || '}'
         ELSE '' END
      || CASE WHEN v ? 'overrides' THEN
           ',"overrides":[' || coalesce((
             SELECT string_agg(
               '{"contextName":' || to_json(o ->> 'contextName')::text
               || ',"values":[' || coalesce((
                    SELECT string_agg(to_json(x)::text, ',' ORDER BY xn)
                    FROM jsonb_array_elements_text(o -> 'values') WITH ORDINALITY AS xs (x, xn)
                  ), '') || ']}',
               ',' ORDER BY orn)
             FROM jsonb_array_elements(v -> 'overrides') WITH ORDINALITY AS os (o, orn)
           ), '') || ']'
         ELSE '' END
      || '}',
      ',' ORDER BY vn), '') || ']')::json
  FROM jsonb_array_elements(variants) WITH ORDINALITY AS vs (v, vn)
);

ALTER TABLE feature_environments DROP COLUMN variants;
ALTER TABLE feature_environments RENAME COLUMN variants_text TO variants;
ALTER TABLE feature_environments
  ALTER COLUMN variants SET NOT NULL,
  ALTER COLUMN variants SET DEFAULT '[]',
  ADD CONSTRAINT feature_environments_variants_is_array CHECK (json_typeof(variants) = 'array');
