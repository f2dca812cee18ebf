import { ListScreen } from '../../components/page'
import { SegmentDialog, SegmentList } from '../../features/segments/segments'

export const SegmentsScreen = () => (
  <ListScreen title='Segments' intro='A segment is a named set of constraints that strategies of many flags can share: change it once, every strategy using it follows.' newLabel='New segment' needs='change-flags' create={(close) => <SegmentDialog segment={null} onClose={close} />}>
    <SegmentList />
  </ListScreen>
)
