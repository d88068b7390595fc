import { Router, type Request, type RequestHandler, type Response } from 'express';
import { AppError } from '../../errors.js';
import { checkLogin, issueOauthToken, openSession, refreshOauthToken, type SignInFailure } from '../../services/users/sign-in.js';
import { TOKEN_SCOPES } from '../../entities/tokens.js';
import type { SiteContext } from '../../site-context.js';
import { SESSION_COOKIE } from '../middleware/authenticate.js';
import { readParams, required, str, type Input } from '../params.js';
import { sendJson } from '../respond.js';

const failureText: Record<SignInFailure, string> = {
  invalid: 'Invalid login or password.',
  blocked: 'Your account has been blocked.',
  password_expired: 'Your password expired. Send a new one as new_password.',
  weak_password: 'new_password must be 8 to 128 characters and differ from the old one.',
};

/** Login and password from `login`/`password` or the web form's `user[login]`/`user[password]`. */
function readLogin(input: Input) {
  const form = (typeof input.user === 'object' && input.user !== null ? input.user : {}) as Input;
  return readParams({ ...form, ...input }, { login: required(str()), password: required(str()), new_password: str() });
}

/** Session sign-in and OAuth 2 password grant, outside /api/v4 as in GitLab. */
export function signInRouter(ctx: SiteContext, input: RequestHandler): Router {
  const router = Router();
  router.post('/users/sign_in', input, async (req: Request, res: Response) => {
    const { login, password, new_password: newPassword } = readLogin(req.input);
    const user = await checkLogin(ctx.db, login, password, newPassword);
    if (typeof user === 'string') throw new AppError(user === 'weak_password' ? 'bad_request' : 'unauthorized', failureText[user]);
    const secret = openSession(ctx.db, user);
    const secure = ctx.externalUrl.startsWith('https:') ? '; Secure' : '';
    res.setHeader('Set-Cookie', `${SESSION_COOKIE}=${secret}; Path=/; HttpOnly; SameSite=Lax${secure}`);
    res.redirect(302, `${ctx.externalUrl}/`);
  });
  router.post('/oauth/token', input, async (req: Request, res: Response) => {
    const { grant_type: grantType } = readParams(req.input, { grant_type: required(str()) });
    if (grantType === 'refresh_token') {
      const { refresh_token: refreshToken } = readParams(req.input, { refresh_token: required(str()) });
      const grant = refreshOauthToken(ctx.db, refreshToken);
      if (!grant) return oauthError(res, 'invalid_grant', 'The refresh token is invalid, expired or revoked.');
      return sendJson(res, 200, grant);
    }
    if (grantType !== 'password') return oauthError(res, 'unsupported_grant_type', 'The authorization grant type is not supported.');
    const { username, password, scope } = readParams(req.input, { username: required(str()), password: required(str()), scope: str() });
    const scopes = (scope ?? 'api').split(/[\s,]+/).filter(Boolean);
    if (!scopes.length || !scopes.every((name) => (TOKEN_SCOPES as readonly string[]).includes(name))) {
      return oauthError(res, 'invalid_scope', 'The requested scope is invalid, unknown, or malformed.');
    }
    const user = await checkLogin(ctx.db, username, password);
    if (typeof user === 'string') return oauthError(res, 'invalid_grant', failureText[user]);
    sendJson(res, 200, issueOauthToken(ctx.db, user.id, scopes));
  });
  return router;
}

function oauthError(res: Response, error: string, description: string): void {
  sendJson(res, error === 'invalid_client' ? 401 : 400, { error, error_description: description });
}

