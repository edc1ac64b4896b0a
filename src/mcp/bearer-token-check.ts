import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether an `Authorization` header carries `Bearer <token>`. Both sides are
 * hashed first, so the comparison takes the same time whatever the length
 * or the first differing byte of what a client sends.
 */
export function createBearerCheck(token: string): (authorization: string | undefined) => boolean {
  const expected = createHash('sha256').update(`Bearer ${token}`).digest();
  return (authorization) => timingSafeEqual(createHash('sha256').update(authorization ?? '').digest(), expected);
}
