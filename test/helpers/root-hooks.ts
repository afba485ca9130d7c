/** Mocha root hooks for the whole suite: drops the run's PostgreSQL database after all tests. */
import { dropRunDatabase } from './database.js';

export const mochaHooks = {
  async afterAll(): Promise<void> {
    await dropRunDatabase();
  },
};
