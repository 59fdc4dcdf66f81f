/**
 * Key names that hold secrets, spelt as apps and SDKs spell them: what every
 * test of redaction (logs, the dashboard, the CLI's output) hides.
 */
export const SECRET_KEY_SAMPLES: readonly string[] = [
  "secretKey",
  "secret_key",
  "SECRET-KEY",
  "aws_secret_access_key",
  "apiKey",
  "api_key",
  "x-api-key",
  "token",
  "accessToken",
  "refresh_token",
  "password",
  "passwd",
  "db_pwd",
  "cookie",
  "Set-Cookie",
  "authorization",
  "Proxy-Authorization",
  "basicAuth",
  "client_secret",
  "privateKey",
  "credentials",
  "sessionId",
];
