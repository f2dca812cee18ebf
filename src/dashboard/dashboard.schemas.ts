import { Type } from '@sinclair/typebox'
import { Nullable, StringEnum, Timestamp } from '../http/schemas.js'

const Percent = Type.Integer({ minimum: 0, maximum: 100 })

export const PersonalDashboard = Type.Object({
  projects: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      health: Percent,
      technicalDebt: Percent,
      memberCount: Type.Integer({ minimum: 0 }),
      featureCount: Type.Integer({ minimum: 0 }),
    }),
    { description: 'The projects where you have a role (yours or a group\'s) and your favourite projects, by name' }
  ),
  flags: Type.Array(Type.Object({ name: Type.String(), project: Type.String(), type: Type.String() }), {
    description: 'Your favourite flags and those you created, not archived, newest first (at most 100)',
  }),
  projectOwners: Type.Array(Type.Object({ ownerType: Type.Literal('user'), name: Type.String() }), { description: 'Always empty: projects here have no owner role' }),
  admins: Type.Array(
    Type.Object({ id: Type.Integer(), name: Type.Optional(Type.String()), username: Type.Optional(Type.String()), email: Type.Optional(Type.String()) }),
    { description: 'The people with the Admin role (their own or a group\'s)' }
  ),
})

export const PersonalProjectDetails = Type.Object({
  latestEvents: Type.Array(
    Type.Object({
      id: Type.Integer({ minimum: 1 }),
      summary: Nullable(Type.String()),
      createdBy: Type.String(),
      createdByImageUrl: Type.String({ description: 'Always empty: no profile images here' }),
      createdAt: Timestamp,
    }),
    { description: "The project's ten newest events (summary null: the history screen says them in words)" }
  ),
  onboardingStatus: Type.Union([
    Type.Object({ status: StringEnum(['onboarding-started', 'sdk-connected', 'onboarded']) }),
    Type.Object({ status: Type.Literal('first-flag-created'), feature: Type.String() }),
  ], { description: 'onboarded: an SDK evaluated one of its flags and one was switched on; sdk-connected: only the first; first-flag-created: it has a flag; else onboarding-started' }),
  owners: Type.Array(Type.Object({ ownerType: Type.Literal('system') }), { description: 'The system owner, as Unleash answers for a project without owners' }),
  roles: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), type: Type.Literal('project') }), { description: 'Your roles in the project' }),
  insights: Type.Object({
    avgHealthCurrentWindow: Type.Null({ description: 'No health history is kept here' }),
    avgHealthPastWindow: Type.Null(),
    totalFlags: Type.Integer({ minimum: 0 }),
    activeFlags: Type.Integer({ minimum: 0 }),
    staleFlags: Type.Integer({ minimum: 0 }),
    potentiallyStaleFlags: Type.Integer({ minimum: 0, description: 'Not marked stale, and older than their type\'s expected lifetime' }),
    health: Percent,
    technicalDebt: Percent,
  }),
})
