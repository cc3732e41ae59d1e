import type { Credentials } from '../../../src-main/api/auth'

export const CRASH_CREDENTIALS: Credentials = {
  apiToken: 'crashTestToken0123456789abcdefghijklmno',
  email: 'crash@example.com',
  apiKey: '0123456789abcdef0123456789abcdef01234',
}
