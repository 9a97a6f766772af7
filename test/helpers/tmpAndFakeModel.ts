import { startFakeModelServer, FakeModelServer } from '../fakes/model/server';
import { makeTmpDir } from './tmp';

/**
 * A fresh temp folder and fake model server for every test of the calling `describe` block, both
 * closed after it. Read them as `world.tmp` and `world.fake` inside the tests.
 */
export function withTmpAndFakeModel(): { readonly tmp: ReturnType<typeof makeTmpDir>; readonly fake: FakeModelServer } {
  const world = {} as { tmp: ReturnType<typeof makeTmpDir>; fake: FakeModelServer };
  beforeEach(async () => {
    world.tmp = makeTmpDir();
    world.fake = await startFakeModelServer();
  });
  afterEach(async () => {
    await world.fake.close();
    world.tmp.cleanup();
  });
  return world;
}
