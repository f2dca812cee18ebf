import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { Database } from '../db/types.js'
import { errorStatuses } from '../http/openapi.js'
import { ProjectParams } from '../http/schemas.js'
import { ApplicationsQuery, FlagCreators, ListedProject, NewProject, Project, ProjectApplications, ProjectOverview, ProjectStatus } from './projects.schemas.js'
import { createProject, overview, project, projectApplications, projectFlagCreators, projects, status } from './projects.service.js'

export const projectRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.get(
    '/api/admin/projects',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Projects'],
        operationId: 'getProjects',
        summary: 'List the projects the token can see',
        description:
          "As Unleash's project list: by name, each with its flag count, members, health and technical debt, flags ready for clean-up, when its flags last changed and were last evaluated, and its onboarding status.",
        errors: errorStatuses(403),
        response: { 200: Type.Object({ version: Type.Literal(1), projects: Type.Array(ListedProject) }) },
      },
    },
    async (request) => ({ version: 1 as const, projects: await projects(db, request.token) })
  )

  app.post(
    '/api/admin/projects',
    {
      config: { access: 'admin', role: 'admin' },
      schema: {
        tags: ['Projects'],
        operationId: 'createProject',
        summary: 'Create a project (needs a */* token)',
        body: NewProject,
        errors: errorStatuses(400, 403, 409, 413, 415),
        response: { 201: Project },
      },
    },
    async (request, reply) => reply.code(201).send(await createProject(db, request.body, request.author))
  )

  app.get(
    '/api/admin/projects/:projectId',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Projects'],
        operationId: 'getProject',
        summary: 'Get a project',
        params: ProjectParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: Project },
      },
    },
    async (request) => project(db, request.params.projectId)
  )

  app.get(
    '/api/admin/projects/:projectId/overview',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Projects'],
        operationId: 'getProjectOverview',
        summary: 'A project at a glance',
        description:
          'As Unleash: its settings (mode open, no flag limit or naming pattern here), members, health, environments with their default strategies, flags by type, onboarding status, and counts over the last 30 days and the 30 before (computed when asked).',
        params: ProjectParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: ProjectOverview },
      },
    },
    async (request) => overview(db, request.params.projectId)
  )

  app.get(
    '/api/admin/projects/:projectId/status',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Projects'],
        operationId: 'getProjectStatus',
        summary: "A project's activity, resources, health and lifecycle",
        description: 'As Unleash. A project that does not exist is a 404 (Unleash answers zeros).',
        params: ProjectParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: ProjectStatus },
      },
    },
    async (request) => status(db, request.params.projectId)
  )

  app.get(
    '/api/admin/projects/:projectId/flag-creators',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Projects'],
        operationId: 'getProjectFlagCreators',
        summary: "Who created the project's flags",
        params: ProjectParams,
        errors: errorStatuses(400, 403, 404),
        response: { 200: FlagCreators },
      },
    },
    async (request) => projectFlagCreators(db, request.params.projectId)
  )

  app.get(
    '/api/admin/projects/:projectId/applications',
    {
      config: { access: 'token', role: 'viewer' },
      schema: {
        tags: ['Projects'],
        operationId: 'getProjectApplications',
        summary: "The applications that use the project's flags",
        description:
          "As Unleash: the applications whose SDKs reported evaluating one of the project's flags (within the usage retention), by name, with the environments they reported from, their instances there and their SDKs and versions; a page of `limit` applications after `offset`, and the `total` matching.",
        params: ProjectParams,
        querystring: ApplicationsQuery,
        errors: errorStatuses(400, 403, 404),
        response: { 200: ProjectApplications },
      },
    },
    async (request) => projectApplications(db, request.params.projectId, request.query)
  )
}
