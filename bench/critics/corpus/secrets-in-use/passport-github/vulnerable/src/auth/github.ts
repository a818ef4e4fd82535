import passport from 'passport';
import { Strategy as GitHubStrategy } from 'passport-github2';

passport.use(
  new GitHubStrategy(
    {
      clientID: 'Iv1.8a61f9b3a7aba766',
      clientSecret: 'c1f3e2d4b5a6978812ab34cd56ef7890aa12bb34', // VULN: secret/hardcoded-key
      callbackURL: 'https://app.example.com/auth/github/callback',
    },
    (_accessToken: string, _refreshToken: string, profile: unknown, done: (e: unknown, u?: unknown) => void) => done(null, profile),
  ),
);
