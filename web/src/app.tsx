import { lazy, Suspense, useEffect, useRef, useState, type ComponentType } from 'react';
import { Link, Redirect, Route, Switch, useLocation, useSearch } from 'wouter';
import { api } from './api.ts';
import { ForgotPasswordPage, SetPasswordPage, SignInPage } from './pages/sign-in.tsx';
import { TimesheetPage } from './pages/timesheet.tsx';
import { forgetMembersData, maysee, safeNext, SessionGate, sessionNow, useMe, useSignOut, type Audience } from './session.tsx';
import { PasswordConfirmationProvider } from './ui/confirm-password.tsx';
import { NoticeProvider } from './ui/notice.tsx';
import { NoAccess } from './ui/page.tsx';

/**
 * Signing in and the timesheet (what everyone opens first) are in the main bundle; the other pages
 * load when first opened, so a first visit downloads and parses less.
 */
const page = <K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K) => lazy(async () => ({ default: (await load())[name] }));
const ApprovalsPage = page(() => import('./pages/approvals.tsx'), 'ApprovalsPage');
const ClientsPage = page(() => import('./pages/clients.tsx'), 'ClientsPage');
const ClientPage = page(() => import('./pages/client.tsx'), 'ClientPage');
const ProjectsPage = page(() => import('./pages/projects.tsx'), 'ProjectsPage');
const ProjectPage = page(() => import('./pages/project.tsx'), 'ProjectPage');
const InvoicesPage = page(() => import('./pages/invoices.tsx'), 'InvoicesPage');
const NewInvoicePage = page(() => import('./pages/invoice-new.tsx'), 'NewInvoicePage');
const InvoicePage = page(() => import('./pages/invoice.tsx'), 'InvoicePage');
const EditInvoicePage = page(() => import('./pages/invoice-edit.tsx'), 'EditInvoicePage');
const WebhooksPage = page(() => import('./pages/webhooks.tsx'), 'WebhooksPage');
const TeamPage = page(() => import('./pages/team.tsx'), 'TeamPage');
const SettingsPage = page(() => import('./pages/settings.tsx'), 'SettingsPage');
const AccountPage = page(() => import('./pages/account.tsx'), 'AccountPage');
const TimeReportPage = page(() => import('./pages/reports-time.tsx'), 'TimeReportPage');
const UnbilledPage = page(() => import('./pages/reports-unbilled.tsx'), 'UnbilledPage');
const ReceivablesPage = page(() => import('./pages/reports-receivables.tsx'), 'ReceivablesPage');

interface AppRoute {
  path: string;
  page: ComponentType;
  who: Audience;
  /** Shown in the navigation under this name. */
  nav?: string;
}

/**
 * Every page of the app: where it lives, who may open it, and whether the navigation lists it.
 * A new screen (reports, payments) is one row here. Paths must start with a segment the server
 * knows as an app route (APP_ROUTES in src/web/serve-app.ts).
 */
const ROUTES: AppRoute[] = [
  { path: '/timesheet', page: TimesheetPage, who: 'all', nav: 'Timesheet' },
  { path: '/approvals', page: ApprovalsPage, who: 'manager', nav: 'Approvals' },
  { path: '/clients', page: ClientsPage, who: 'admin', nav: 'Clients' },
  { path: '/clients/:id', page: ClientPage, who: 'admin' },
  { path: '/projects', page: ProjectsPage, who: 'manager', nav: 'Projects' },
  { path: '/projects/:id', page: ProjectPage, who: 'manager' },
  { path: '/invoicing', page: InvoicesPage, who: 'admin', nav: 'Invoices' },
  { path: '/invoicing/new', page: NewInvoicePage, who: 'admin' },
  { path: '/invoicing/:id', page: InvoicePage, who: 'admin' },
  { path: '/invoicing/:id/edit', page: EditInvoicePage, who: 'admin' },
  { path: '/reports', page: TimeReportPage, who: 'all', nav: 'Reports' },
  { path: '/reports/unbilled', page: UnbilledPage, who: 'admin' },
  { path: '/reports/receivables', page: ReceivablesPage, who: 'admin' },
  { path: '/team', page: TeamPage, who: 'admin', nav: 'Team' },
  { path: '/settings', page: SettingsPage, who: 'admin', nav: 'Settings' },
  { path: '/settings/webhooks', page: WebhooksPage, who: 'admin' },
  { path: '/account', page: AccountPage, who: 'all' },
];

function Guarded({ route }: { route: AppRoute }) {
  const me = useMe();
  const Page = route.page;
  return maysee(me, route.who) ? <Page /> : <NoAccess />;
}

function Header() {
  const me = useMe();
  const [location] = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  const menuWasOpen = useRef(menuOpen);
  menuWasOpen.current = menuOpen;
  useEffect(() => {
    // A page chosen from the open menu (phones): closing the menu hides the link that had focus, so
    // focus moves to the page rather than dropping to <body>.
    if (menuWasOpen.current) document.getElementById('main')?.focus();
    setMenuOpen(false);
  }, [location]);
  // Escape closes the open menu (phones) and hands focus back to the Menu button; a dialog's Escape is its own.
  useEffect(() => {
    if (!menuOpen) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented || document.querySelector('dialog[open]')) return;
      setMenuOpen(false);
      menuButton.current?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [menuOpen]);
  const signOut = useSignOut(() => api.auth.signOut.mutate(), { always: true });
  const items = ROUTES.filter((r) => r.nav && maysee(me, r.who));
  return (
    <header className="topbar">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <div className="topbar-row">
        <Link href="/timesheet" className="brand">
          {me.workspace.name}
        </Link>
        <button ref={menuButton} type="button" className="button ghost menu-button" aria-expanded={menuOpen} aria-controls="main-nav" onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </button>
        <nav id="main-nav" aria-label="Main" className={menuOpen ? 'open' : undefined}>
          <ul>
            {items.map((r) => (
              <li key={r.path}>
                <Link href={r.path} aria-current={location === r.path || location.startsWith(`${r.path}/`) ? 'page' : undefined}>
                  {r.nav}
                </Link>
              </li>
            ))}
          </ul>
          <div className="me">
            <Link href="/account" aria-current={location === '/account' ? 'page' : undefined}>
              {me.member.first_name} {me.member.last_name}
            </Link>
            <button type="button" className="button ghost" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
              Sign out
            </button>
          </div>
        </nav>
      </div>
    </header>
  );
}

function SignedInApp() {
  return (
    <>
      <Header />
      <main id="main" tabIndex={-1}>
        <Suspense
          fallback={
            <p className="muted" role="status">
              Loading…
            </p>
          }
        >
          <Switch>
          {ROUTES.map((r) => (
            <Route key={r.path} path={r.path}>
              <Guarded route={r} />
            </Route>
          ))}
          <Route path="/set-password">
            <SetPasswordPage />
          </Route>
          <Route path="/sign-in">
            <SignedInAtSignIn />
          </Route>
          <Route>
            <Redirect to="/timesheet" replace />
          </Route>
          </Switch>
        </Suspense>
      </main>
    </>
  );
}

/**
 * The sign-in page while signed in: just signed in, on to the page that was asked for (`?next=`,
 * with its query string); just signed out, nothing (the signed-out app is about to show the page).
 */
function SignedInAtSignIn() {
  const search = useSearch();
  if (sessionNow() === 'signed-out') return null;
  return <Redirect to={safeNext(search)} replace />;
}

/**
 * Any other address while signed out: to the sign-in page, which comes back to it (path and query)
 * after signing in; nothing while the session is being opened (the signed-in app is about to show it).
 */
function ToSignIn() {
  const [location] = useLocation();
  const search = useSearch();
  if (sessionNow() === 'signed-in') return null;
  const here = `${location}${search ? `?${search}` : ''}`;
  return <Redirect to={`/sign-in${here === '/' ? '' : `?next=${encodeURIComponent(here)}`}`} replace />;
}

/** Signed out: the sign-in pages; any other address comes back to it after signing in. */
function SignedOutApp() {
  // Nothing of the member who was signed in stays in the cache (the next person may use this browser).
  useEffect(forgetMembersData, []);
  return (
    <main id="main" className="narrow">
      <p className="wordmark">hourbook</p>
      <Switch>
        <Route path="/set-password">
          <SetPasswordPage />
        </Route>
        <Route path="/forgot-password">
          <ForgotPasswordPage />
        </Route>
        <Route path="/sign-in">
          <SignInPage />
        </Route>
        <Route>
          <ToSignIn />
        </Route>
      </Switch>
    </main>
  );
}

export function App() {
  return (
    <NoticeProvider>
      <SessionGate
        signedIn={
          <PasswordConfirmationProvider>
            <SignedInApp />
          </PasswordConfirmationProvider>
        }
        signedOut={<SignedOutApp />}
      />
    </NoticeProvider>
  );
}
