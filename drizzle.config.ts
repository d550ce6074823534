import { defineConfig } from 'drizzle-kit';

// Migrations are generated into db/migrations and applied by the workspace registry whenever a
// workspace file is opened or created (src/workspaces/migrate.ts). There is no central database.
export default defineConfig({
  dialect: 'sqlite',
  schema: './src/db/schema/index.ts',
  out: './db/migrations',
});
