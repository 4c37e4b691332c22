import type { Db } from '../../db/database.ts';

/** Named instants the service records about itself, such as the distributor's last report. */
export async function readMark(db: Db, name: string): Promise<string | null> {
  const row = await db.selectFrom('service_marks').select('at').where('name', '=', name).executeTakeFirst();
  return row?.at ?? null;
}
