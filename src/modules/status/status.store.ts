import type { Db } from '../../db/database.ts';
import { preparedQuery } from '../../db/prepared.ts';

const selectMark = preparedQuery((db: Db, name: string) =>
  db.selectFrom('service_marks').select('at').where('name', '=', name),
);

/** Named instants the service records about itself, such as the distributor's last report. */
export async function readMark(db: Db, name: string): Promise<string | null> {
  const [row] = await selectMark(db, name);
  return row?.at ?? null;
}

export async function stampMark(db: Db, name: string, at: string): Promise<void> {
  await db
    .insertInto('service_marks')
    .values({ name, at })
    .onConflict((oc) => oc.column('name').doUpdateSet({ at }))
    .execute();
}
