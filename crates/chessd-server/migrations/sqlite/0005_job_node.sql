-- The node running a job, in a cluster (NULL on a single node): when that node's lease ends
-- with the job unfinished, another node claims the job (setting this column in one UPDATE, so
-- that one node wins) and resumes it from its finished tasks.
ALTER TABLE jobs ADD COLUMN node TEXT;
