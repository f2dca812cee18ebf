import { post } from '../../api/client'
import { keys } from '../../api/keys'
import type { Project } from '../../api/types'
import { type AfterWrite, useWrite } from '../../api/write'

export interface NewProject { id: string; name: string; description?: string }

export const useCreateProject = (after?: AfterWrite<NewProject, Project>) =>
  useWrite((project: NewProject) => post<Project>('/api/admin/projects', project), () => [keys.projects], after)
