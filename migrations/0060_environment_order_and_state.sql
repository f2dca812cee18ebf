-- Environments as Unleash describes them: where they are listed (sort_order, lower first),
-- whether they are enabled (a disabled environment is deprecated: still served and writable,
-- only no longer offered), and whether they are protected (answered because Unleash's clients
-- read it; no environment can be deleted here).
ALTER TABLE environments
  ADD COLUMN sort_order INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN enabled    BOOLEAN NOT NULL DEFAULT true,
  ADD COLUMN protected  BOOLEAN NOT NULL DEFAULT false;

-- development and production get Unleash's numbers (2 and 3); others follow in creation order.
UPDATE environments AS e
SET sort_order = ranked.n
FROM (
  SELECT name,
         row_number() OVER (
           ORDER BY CASE name WHEN 'development' THEN 0 WHEN 'production' THEN 1 ELSE 2 END, created_at, name
         ) + 1 AS n
  FROM environments
) AS ranked
WHERE e.name = ranked.name;
